package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/rest/api"
)

// Pod is one version of a pod: what the model serves, and what the checker
// compares of what a watcher holds. RV is the version's resourceVersion; for
// a deleted pod it is the deletion's.
type Pod struct {
	Namespace, Name string
	UID             string
	RV              int64
	Node            string // "" while unbound
	Image           string
	Phase           string
	Deleting        bool // deletionTimestamp set
}

// Key is "namespace/name", as the undelta store sorts by.
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

func (p Pod) String() string {
	s := fmt.Sprintf("%s@%d uid=%s node=%s image=%s phase=%s", p.Key(), p.RV, p.UID, p.Node, p.Image, p.Phase)
	if p.Deleting {
		s += " deleting"
	}
	return s
}

// FromAPI is what the checker keeps of a pod a watcher holds. A resourceVersion
// that is not a number becomes -1, which no state holds.
func FromAPI(p *api.Pod) Pod {
	rv, err := strconv.ParseInt(p.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		rv = -1
	}
	out := Pod{
		Namespace: p.Metadata.Namespace, Name: p.Metadata.Name, UID: p.Metadata.UID, RV: rv,
		Node: p.Spec.NodeName, Phase: p.Status.Phase, Deleting: p.Metadata.DeletionTimestamp != nil,
	}
	if len(p.Spec.Containers) > 0 {
		out.Image = p.Spec.Containers[0].Image
	}
	return out
}

// epoch stamps every pod's timestamps, so a history's bytes depend on its seed
// only.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// The wire form of a pod: the fields a kubelet reads and some it does not,
// shaped as the apiserver writes them.
type (
	wirePod struct {
		Kind       string     `json:"kind"`
		APIVersion string     `json:"apiVersion"`
		Metadata   wireMeta   `json:"metadata"`
		Spec       wireSpec   `json:"spec"`
		Status     wireStatus `json:"status"`
	}
	wireMeta struct {
		Name                       string            `json:"name,omitempty"`
		Namespace                  string            `json:"namespace,omitempty"`
		UID                        string            `json:"uid,omitempty"`
		ResourceVersion            string            `json:"resourceVersion"`
		Generation                 int64             `json:"generation,omitempty"`
		CreationTimestamp          *time.Time        `json:"creationTimestamp,omitempty"`
		DeletionTimestamp          *time.Time        `json:"deletionTimestamp,omitempty"`
		DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
		Labels                     map[string]string `json:"labels,omitempty"`
		Annotations                map[string]string `json:"annotations,omitempty"`
	}
	wireSpec struct {
		NodeName                      string           `json:"nodeName,omitempty"`
		Containers                    []wireContainer  `json:"containers"`
		RestartPolicy                 string           `json:"restartPolicy"`
		TerminationGracePeriodSeconds int64            `json:"terminationGracePeriodSeconds"`
		DNSPolicy                     string           `json:"dnsPolicy"`
		Tolerations                   []wireToleration `json:"tolerations"`
	}
	wireContainer struct {
		Name            string         `json:"name"`
		Image           string         `json:"image"`
		Resources       map[string]any `json:"resources"`
		ImagePullPolicy string         `json:"imagePullPolicy"`
	}
	wireToleration struct {
		Key               string `json:"key"`
		Operator          string `json:"operator"`
		Effect            string `json:"effect"`
		TolerationSeconds int64  `json:"tolerationSeconds"`
	}
	wireStatus struct {
		Phase      string          `json:"phase,omitempty"`
		HostIP     string          `json:"hostIP,omitempty"`
		PodIP      string          `json:"podIP,omitempty"`
		Conditions []wireCondition `json:"conditions,omitempty"`
	}
	wireCondition struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	}
)

// JSON is the pod as the apiserver would send it.
func (p Pod) JSON() []byte {
	created := epoch
	w := wirePod{
		Kind: "Pod", APIVersion: "v1",
		Metadata: wireMeta{
			Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: strconv.FormatInt(p.RV, 10),
			CreationTimestamp: &created,
			Labels:            map[string]string{"app": "model", "pod-template-hash": "5d8f9c7b6"},
			Annotations:       map[string]string{"kubernetes.io/config.source": "api"},
		},
		Spec: wireSpec{
			NodeName:      p.Node,
			Containers:    []wireContainer{{Name: "main", Image: p.Image, Resources: map[string]any{}, ImagePullPolicy: "IfNotPresent"}},
			RestartPolicy: "Always", TerminationGracePeriodSeconds: 30, DNSPolicy: "ClusterFirst",
			Tolerations: []wireToleration{
				{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: 300},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: 300},
			},
		},
		Status: wireStatus{Phase: p.Phase},
	}
	if p.Deleting {
		grace := int64(30)
		w.Metadata.DeletionTimestamp, w.Metadata.DeletionGracePeriodSeconds = &created, &grace
	}
	if p.Node != "" {
		w.Status.HostIP = "10.0.0.1"
		w.Status.Conditions = []wireCondition{{Type: "PodScheduled", Status: "True"}}
	}
	if p.Phase == "Running" {
		w.Status.PodIP = "10.1.0." + strconv.FormatInt(p.RV%250+1, 10)
		w.Status.Conditions = append(w.Status.Conditions, wireCondition{Type: "Ready", Status: "True"})
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic("model: encode pod: " + err.Error()) // cannot happen: plain types only
	}
	return b
}
