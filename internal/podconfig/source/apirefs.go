package source

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/podwatch/podwatch/rest/api"
)

// A static pod runs before, and without, the apiserver, so the kubelet (since
// 1.34, by default; the PreventStaticPodAPIReferences gate) refuses one whose
// spec names an API object: a service account, a secret or config map
// anywhere (env, envFrom, image pull secrets, volumes), a resource claim, or
// a volume backed by the API (persistent volume claims, CSI, projected
// tokens, cluster trust bundles, pod certificates). checkAPIReferences does
// the same, in the kubelet's order, so that the reason names the same
// resource.

// APIReferenceError is a static pod refused for naming an API object.
type APIReferenceError struct {
	Pod      string // the pod's name
	Field    string // where, e.g. "spec.volumes[0].secret"
	Resource string // what, as the kubelet says it: "secrets", "configmaps (via projected volumes)", ...
}

func (e *APIReferenceError) Error() string {
	return fmt.Sprintf("static pod %q: %s: static pods may not reference %s", e.Pod, e.Field, e.Resource)
}

// refSpec is the part of a pod spec that can name API objects.
type refSpec struct {
	ServiceAccountName  string                       `json:"serviceAccountName"`
	ServiceAccount      string                       `json:"serviceAccount"` // the old spelling of the same field
	ImagePullSecrets    []json.RawMessage            `json:"imagePullSecrets"`
	InitContainers      []refContainer               `json:"initContainers"`
	Containers          []refContainer               `json:"containers"`
	EphemeralContainers []refContainer               `json:"ephemeralContainers"`
	ResourceClaims      []json.RawMessage            `json:"resourceClaims"`
	Volumes             []map[string]json.RawMessage `json:"volumes"`
}

type refContainer struct {
	Env []struct {
		ValueFrom struct {
			SecretKeyRef    json.RawMessage `json:"secretKeyRef"`
			ConfigMapKeyRef json.RawMessage `json:"configMapKeyRef"`
		} `json:"valueFrom"`
	} `json:"env"`
	EnvFrom []struct {
		SecretRef    json.RawMessage `json:"secretRef"`
		ConfigMapRef json.RawMessage `json:"configMapRef"`
	} `json:"envFrom"`
}

// A reference found: where, and to what.
type apiRef struct{ field, resource string }

// checkAPIReferences refuses a static pod whose spec names an API object, or
// has a volume of a kind the kubelet does not know (it refuses those too).
func checkAPIReferences(p *api.Pod) error {
	var s refSpec
	if err := json.Unmarshal(p.SpecJSON(), &s); err != nil {
		return &InvalidPodError{Pod: p.Metadata.Name, Field: "spec", Reason: err.Error()}
	}
	for _, find := range []func(*refSpec) (apiRef, error){serviceAccountRef, secretRef, configMapRef, claimRef, volumeRef} {
		ref, err := find(&s)
		if err != nil {
			return &InvalidPodError{Pod: p.Metadata.Name, Field: ref.field, Reason: err.Error()}
		}
		if ref.resource != "" {
			return &APIReferenceError{Pod: p.Metadata.Name, Field: ref.field, Resource: ref.resource}
		}
	}
	return nil
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func serviceAccountRef(s *refSpec) (apiRef, error) {
	switch {
	case s.ServiceAccountName != "":
		return apiRef{"spec.serviceAccountName", "serviceaccounts"}, nil
	case s.ServiceAccount != "":
		return apiRef{"spec.serviceAccount", "serviceaccounts"}, nil
	}
	return apiRef{}, nil
}

// containerGroups are the spec's container lists with their field names.
func containerGroups(s *refSpec) []struct {
	field string
	list  []refContainer
} {
	return []struct {
		field string
		list  []refContainer
	}{{"spec.initContainers", s.InitContainers}, {"spec.containers", s.Containers}, {"spec.ephemeralContainers", s.EphemeralContainers}}
}

// envRef finds the first env or envFrom entry of any container that pick
// says names an object.
func envRef(s *refSpec, resource string, pickEnv func(c refContainer, i int) bool, pickFrom func(c refContainer, i int) (bool, string)) apiRef {
	for _, g := range containerGroups(s) {
		for ci, c := range g.list {
			for i := range c.Env {
				if pickEnv(c, i) {
					return apiRef{fmt.Sprintf("%s[%d].env[%d].valueFrom", g.field, ci, i), resource}
				}
			}
			for i := range c.EnvFrom {
				if ok, key := pickFrom(c, i); ok {
					return apiRef{fmt.Sprintf("%s[%d].envFrom[%d].%s", g.field, ci, i, key), resource}
				}
			}
		}
	}
	return apiRef{}
}

// secretVolumeKeys are the volume kinds that may name a secret, and the member
// of theirs that does ("" when the kind itself is a secret's).
var secretVolumeKeys = []struct{ kind, member string }{
	{"secret", ""}, {"azureFile", ""}, {"cephfs", "secretRef"}, {"cinder", "secretRef"},
	{"flexVolume", "secretRef"}, {"rbd", "secretRef"}, {"scaleIO", "secretRef"},
	{"iscsi", "secretRef"}, {"storageos", "secretRef"}, {"csi", "nodePublishSecretRef"},
}

func secretRef(s *refSpec) (apiRef, error) {
	if len(s.ImagePullSecrets) > 0 {
		return apiRef{"spec.imagePullSecrets", "secrets"}, nil
	}
	ref := envRef(s, "secrets",
		func(c refContainer, i int) bool { return present(c.Env[i].ValueFrom.SecretKeyRef) },
		func(c refContainer, i int) (bool, string) { return present(c.EnvFrom[i].SecretRef), "secretRef" })
	if ref.resource != "" {
		return ref, nil
	}
	for vi, v := range s.Volumes {
		for _, k := range secretVolumeKeys {
			if hasMember(v[k.kind], k.member) {
				return apiRef{volumeField(vi, k.kind, k.member), "secrets"}, nil
			}
		}
		if i, ok := projectedSource(v, "secret"); ok {
			return apiRef{fmt.Sprintf("spec.volumes[%d].projected.sources[%d].secret", vi, i), "secrets"}, nil
		}
	}
	return apiRef{}, nil
}

func configMapRef(s *refSpec) (apiRef, error) {
	ref := envRef(s, "configmaps",
		func(c refContainer, i int) bool { return present(c.Env[i].ValueFrom.ConfigMapKeyRef) },
		func(c refContainer, i int) (bool, string) { return present(c.EnvFrom[i].ConfigMapRef), "configMapRef" })
	if ref.resource != "" {
		return ref, nil
	}
	for vi, v := range s.Volumes {
		if present(v["configMap"]) {
			return apiRef{volumeField(vi, "configMap", ""), "configmaps"}, nil
		}
		if i, ok := projectedSource(v, "configMap"); ok {
			return apiRef{fmt.Sprintf("spec.volumes[%d].projected.sources[%d].configMap", vi, i), "configmaps"}, nil
		}
	}
	return apiRef{}, nil
}

func claimRef(s *refSpec) (apiRef, error) {
	if len(s.ResourceClaims) > 0 {
		return apiRef{"spec.resourceClaims", "resourceclaims"}, nil
	}
	return apiRef{}, nil
}

// Volume kinds that need nothing from the API.
var localVolumeKinds = map[string]bool{
	"awsElasticBlockStore": true, "azureDisk": true, "cephfs": true, "cinder": true, "downwardAPI": true,
	"emptyDir": true, "fc": true, "flexVolume": true, "flocker": true, "gcePersistentDisk": true,
	"gitRepo": true, "hostPath": true, "image": true, "iscsi": true, "nfs": true,
	"photonPersistentDisk": true, "portworxVolume": true, "quobyte": true, "rbd": true,
	"scaleIO": true, "storageos": true, "vsphereVolume": true,
}

// Volume kinds backed by the API, with what the kubelet says they reference.
var apiVolumeKinds = map[string]string{
	"configMap":             "configmaps (via configmap volumes)",
	"secret":                "secrets (via secret volumes)",
	"csi":                   "csidrivers (via CSI volumes)",
	"glusterfs":             "endpoints (via glusterFS volumes)",
	"persistentVolumeClaim": "persistentvolumeclaims",
	"ephemeral":             "persistentvolumeclaims (via ephemeral volumes)",
	"azureFile":             "secrets (via azureFile volumes)",
}

// Projected volume sources backed by the API; downwardAPI is the only other.
var apiProjectedSources = map[string]string{
	"configMap":           "configmaps (via projected volumes)",
	"secret":              "secrets (via projected volumes)",
	"serviceAccountToken": "serviceaccounts (via projected volumes)",
	"clusterTrustBundle":  "clustertrustbundles",
	"podCertificate":      "podcertificates",
}

// volumeRef checks each volume's kind; its error is a volume, or projected
// source, of no kind the kubelet knows.
func volumeRef(s *refSpec) (apiRef, error) {
	for vi, v := range s.Volumes {
		kind, err := volumeKind(v)
		if err != nil {
			return apiRef{field: fmt.Sprintf("spec.volumes[%d]", vi)}, err
		}
		switch {
		case localVolumeKinds[kind]:
			continue
		case apiVolumeKinds[kind] != "":
			return apiRef{volumeField(vi, kind, ""), apiVolumeKinds[kind]}, nil
		case kind == "projected":
			ref, err := projectedRef(vi, v[kind])
			if err != nil || ref.resource != "" {
				return ref, err
			}
		default:
			return apiRef{field: volumeField(vi, kind, "")}, fmt.Errorf("not a volume kind the kubelet knows")
		}
	}
	return apiRef{}, nil
}

func projectedRef(vi int, raw json.RawMessage) (apiRef, error) {
	for i, src := range projectedSources(raw) {
		field := fmt.Sprintf("spec.volumes[%d].projected.sources[%d]", vi, i)
		kind, err := volumeKind(src)
		if err != nil {
			return apiRef{field: field}, err
		}
		switch {
		case kind == "downwardAPI":
			continue
		case apiProjectedSources[kind] != "":
			return apiRef{field + "." + kind, apiProjectedSources[kind]}, nil
		default:
			return apiRef{field: field + "." + kind}, fmt.Errorf("not a projected source kind the kubelet knows")
		}
	}
	return apiRef{}, nil
}

// volumeKind is the member of a volume (or projected source) that says its
// kind; a volume must have exactly one.
func volumeKind(v map[string]json.RawMessage) (string, error) {
	var kinds []string
	for k, raw := range v {
		if k != "name" && present(raw) {
			kinds = append(kinds, k)
		}
	}
	switch len(kinds) {
	case 0:
		return "", fmt.Errorf("no kind set")
	case 1:
		return kinds[0], nil
	}
	slices.Sort(kinds)
	return "", fmt.Errorf("more than one kind set: %s", strings.Join(kinds, ", "))
}

func volumeField(i int, kind, member string) string {
	f := fmt.Sprintf("spec.volumes[%d].%s", i, kind)
	if member != "" {
		f += "." + member
	}
	return f
}

// hasMember reports whether a volume of some kind is set and, when member is
// given, has that member set.
func hasMember(raw json.RawMessage, member string) bool {
	if !present(raw) {
		return false
	}
	if member == "" {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && present(m[member])
}

func projectedSources(raw json.RawMessage) []map[string]json.RawMessage {
	var p struct {
		Sources []map[string]json.RawMessage `json:"sources"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	return p.Sources
}

// projectedSource finds the first source of kind in v, if v is projected.
func projectedSource(v map[string]json.RawMessage, kind string) (int, bool) {
	if !present(v["projected"]) {
		return 0, false
	}
	for i, src := range projectedSources(v["projected"]) {
		if present(src[kind]) {
			return i, true
		}
	}
	return 0, false
}
