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
	if !bytes.Equal(e.statusJSON(), ref.StatusJSON()) {
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
	return !bytes.Equal(e.specJSON(), ref.SpecJSON())
}

// local reports annotations PodConfig sets itself, which a source's copy of the
// pod never has right and which therefore never count as a change.
func local(key string) bool { return key == SourceAnnotation || key == SeenAnnotation }

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

func formatSeen(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
