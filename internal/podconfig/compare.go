package podconfig

import (
	"bytes"
	"maps"
	"time"

	"github.com/podwatch/podwatch/rest/api"
)

// entry is one stored pod with its spec and status encodings, computed when first
// needed and kept, because a periodic SET compares every pod of a source again.
type entry struct {
	pod    *api.Pod
	spec   []byte
	status []byte
}

func (e *entry) specJSON() []byte {
	if e.spec == nil {
		e.spec = e.pod.SpecJSON()
	}
	return e.spec
}

func (e *entry) statusJSON() []byte {
	if e.status == nil {
		e.status = e.pod.StatusJSON()
	}
	return e.status
}

// change is how a pod a source sent differs from the stored one.
type change int

const (
	unchanged change = iota
	// touched: nothing PodConfig reports changed, but the object did (a new
	// resourceVersion, managedFields): store it so the next compare is cheap.
	touched
	statusChanged
	changed
)

// compare classifies ref against the stored e. It runs for every pod of every
// api push, so an unchanged resourceVersion and UID settle it without encoding
// anything; pods without a resourceVersion (static pods) are compared in full.
func compare(e *entry, ref *api.Pod) change {
	old := e.pod
	rv := ref.Metadata.ResourceVersion
	if rv != "" && rv == old.Metadata.ResourceVersion && ref.Metadata.UID == old.Metadata.UID {
		return unchanged
	}
	if differsSemantically(e, ref) {
		return changed
	}
	// SameStatus and SameSpec settle most compares without encoding: a pod
	// read from protobuf would otherwise transcode its kept members each time.
	if !ref.SameStatus(e.pod) && !bytes.Equal(e.statusJSON(), ref.StatusJSON()) {
		return statusChanged
	}
	if rv != old.Metadata.ResourceVersion {
		return touched
	}
	return unchanged
}

// differsSemantically reports a change to what the kubelet acts on: labels,
// annotations (other than PodConfig's own), the deletion fields and the spec.
func differsSemantically(e *entry, ref *api.Pod) bool {
	o, n := &e.pod.Metadata, &ref.Metadata
	if !maps.Equal(o.Labels, n.Labels) || !annotationsEqual(o.Annotations, n.Annotations) {
		return true
	}
	if !timePtrEqual(o.DeletionTimestamp, n.DeletionTimestamp) || !int64PtrEqual(o.DeletionGracePeriodSeconds, n.DeletionGracePeriodSeconds) {
		return true
	}
	return !ref.SameSpec(e.pod) && !bytes.Equal(e.specJSON(), ref.SpecJSON())
}

// local reports the annotations the kubelet counts as its own, which never count
// as a change: the two PodConfig stamps, and the mirror annotation, which a
// kubelet writes on the mirror pods it creates.
func local(key string) bool {
	return key == SourceAnnotation || key == SeenAnnotation || key == MirrorAnnotation
}

func annotationsEqual(a, b map[string]string) bool {
	n := 0
	for k, v := range a {
		if local(k) {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		n++
	}
	for k := range b {
		if !local(k) {
			n--
		}
	}
	return n == 0
}

func timePtrEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func int64PtrEqual(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// stamped returns a copy of ref, which belongs to its source and is never
// modified, carrying the source and seen annotations.
func stamped(ref *api.Pod, source, seen string) *api.Pod {
	p := ref.DeepCopy()
	if p.Metadata.Annotations == nil {
		p.Metadata.Annotations = make(map[string]string, 2)
	}
	p.Metadata.Annotations[SourceAnnotation] = source
	p.Metadata.Annotations[SeenAnnotation] = seen
	return p
}

// restamped returns a copy of ref to store in place of old, classified k. As
// the kubelet does, it keeps old's local annotations: the first-seen time and
// the mirror annotation. Only a change the kubelet acts on brings in a
// mirror annotation old did not have; otherwise the kubelet keeps its stored
// pod's annotations as they were.
func restamped(ref, old *api.Pod, source string, k change) *api.Pod {
	p := stamped(ref, source, old.Metadata.Annotations[SeenAnnotation])
	if v, ok := old.Metadata.Annotations[MirrorAnnotation]; ok {
		p.Metadata.Annotations[MirrorAnnotation] = v
	} else if k != changed {
		delete(p.Metadata.Annotations, MirrorAnnotation)
	}
	return p
}

func formatSeen(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
