package jsonx

// commonNames are member names that recur in every pod; sharing one string for
// each saves an allocation per member per decoded object.
var commonNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"ownerReferences", "managedFields", "finalizers", "selfLink",
		"volumes", "initContainers", "restartPolicy", "terminationGracePeriodSeconds",
		"dnsPolicy", "serviceAccountName", "serviceAccount", "securityContext",
		"affinity", "schedulerName", "priority", "priorityClassName", "enableServiceLinks",
		"preemptionPolicy", "topologySpreadConstraints", "hostNetwork", "nodeSelector",
		"imagePullSecrets", "automountServiceAccountToken", "ephemeralContainers",
		"command", "args", "ports", "env", "envFrom", "resources", "volumeMounts",
		"livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
		"terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
		"workingDir", "stdin", "tty",
		"observedGeneration", "conditions", "hostIPs", "podIPs", "startTime",
		"containerStatuses", "initContainerStatuses", "qosClass", "message", "reason",
		"nominatedNodeName", "resize", "resourceClaimStatuses",
		// The members of a managedFields entry, kept one by one (see Objects).
		"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource",
	} {
		m[n] = n
	}
	return m
}()

// intern returns name as a string, shared for common member names.
func intern(name []byte) string {
	if s, ok := commonNames[string(name)]; ok {
		return s
	}
	return string(name)
}
