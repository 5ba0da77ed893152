package api

import (
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// Pod is a core/v1 Pod. Members not modelled here stay in the unexported extra
// stores of Pod, PodSpec, PodStatus and their parts.
type Pod struct {
	meta.TypeMeta
	Metadata meta.ObjectMeta
	Spec     PodSpec
	Status   PodStatus

	extra jsonx.Extra
}

// Meta makes Pod a meta.Object.
func (p *Pod) Meta() *meta.ObjectMeta { return &p.Metadata }

// PodSpec is the modelled part of a pod's spec.
type PodSpec struct {
	NodeName    string
	Containers  []Container
	Tolerations []Toleration

	extra jsonx.Extra
}

// Container is the modelled part of a container.
type Container struct {
	Name  string
	Image string

	extra jsonx.Extra
}

// Toleration lets a pod stay on a node with a matching taint.
type Toleration struct {
	Key               string
	Operator          string
	Value             string
	Effect            string
	TolerationSeconds *int64

	extra jsonx.Extra
}

// PodStatus is the modelled part of a pod's status.
type PodStatus struct {
	Phase  string
	HostIP string
	PodIP  string

	extra jsonx.Extra
}

// Pod phases.
const (
	PodPending   = "Pending"
	PodRunning   = "Running"
	PodSucceeded = "Succeeded"
	PodFailed    = "Failed"
)

// DeepCopy returns a pod that shares nothing mutable with p. Kept raw members are
// shared: they are only ever replaced, never written in place.
func (p *Pod) DeepCopy() *Pod {
	c := *p
	c.Metadata = p.Metadata.DeepCopy()
	c.Spec.Containers = append([]Container(nil), p.Spec.Containers...)
	c.Spec.Tolerations = make([]Toleration, len(p.Spec.Tolerations))
	for i, t := range p.Spec.Tolerations {
		if t.TolerationSeconds != nil {
			v := *t.TolerationSeconds
			t.TolerationSeconds = &v
		}
		c.Spec.Tolerations[i] = t
	}
	if p.Spec.Tolerations == nil {
		c.Spec.Tolerations = nil
	}
	c.Spec.extra = append(jsonx.Extra(nil), p.Spec.extra...)
	c.Status.extra = append(jsonx.Extra(nil), p.Status.extra...)
	c.extra = append(jsonx.Extra(nil), p.extra...)
	return &c
}

// SpecJSON returns the spec's encoding, for comparing two specs member by member.
func (p *Pod) SpecJSON() []byte {
	return jsonx.Encode(p.Spec.WriteJSON)
}

// StatusJSON returns the status's encoding.
func (p *Pod) StatusJSON() []byte {
	return jsonx.Encode(p.Status.WriteJSON)
}
