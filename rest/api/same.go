package api

import (
	"bytes"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// SameSpec reports whether p's spec is held exactly as q's is: the same
// typed fields and the same kept members, in the same form. Then their
// SpecJSON are equal, and comparing costs no encoding, which for members kept
// in protobuf means transcoding them. False says nothing: specs held
// differently (one pod read from JSON, the other from protobuf) may still
// write the same JSON.
func (p *Pod) SameSpec(q *Pod) bool {
	a, b := &p.Spec, &q.Spec
	if a.NodeName != b.NodeName || len(a.Containers) != len(b.Containers) || len(a.Tolerations) != len(b.Tolerations) ||
		(a.Containers == nil) != (b.Containers == nil) || (a.Tolerations == nil) != (b.Tolerations == nil) {
		return false
	}
	for i := range a.Containers {
		c, d := &a.Containers[i], &b.Containers[i]
		if c.Name != d.Name || c.Image != d.Image || !sameExtra(c.extra, d.extra) {
			return false
		}
	}
	for i := range a.Tolerations {
		s, t := &a.Tolerations[i], &b.Tolerations[i]
		if s.Key != t.Key || s.Operator != t.Operator || s.Value != t.Value || s.Effect != t.Effect ||
			!sameInt64Ptr(s.TolerationSeconds, t.TolerationSeconds) || !sameExtra(s.extra, t.extra) {
			return false
		}
	}
	return sameExtra(a.extra, b.extra)
}

// SameStatus is SameSpec for the status.
func (p *Pod) SameStatus(q *Pod) bool {
	a, b := &p.Status, &q.Status
	return a.Phase == b.Phase && a.HostIP == b.HostIP && a.PodIP == b.PodIP && sameExtra(a.extra, b.extra)
}

// sameExtra reports whether a and b keep the same members the same way.
// Shared values compare in one step (bytes.Equal sees the same pointer).
func sameExtra(a, b jsonx.Extra) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Encoding() != b[i].Encoding() || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func sameInt64Ptr(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
