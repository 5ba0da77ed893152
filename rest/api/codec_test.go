package api

import (
	"bytes"
	"testing"
	"unsafe"
)

// A decoded pod keeps nothing of the bytes it came from: a watch decoder
// reuses its buffer for the next event as soon as DecodePod returns.
func TestDecodePodKeepsNothingOfItsInput(t *testing.T) {
	orig := readRealPod(t)
	in := bytes.Clone(orig)
	p, err := DecodePod(in)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	for i := range in {
		in[i] = ' '
	}
	encodesAs(t, "the pod changed when its input was overwritten", p, orig)
}

// Two pods from equal bytes hold their large unmodelled members once, so a
// store of replicas does not pay for each replica's copy.
func TestDecodedPodsShareLargeMembers(t *testing.T) {
	data := readRealPod(t)
	a, err := DecodePod(bytes.Clone(data))
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	b, err := DecodePod(bytes.Clone(data))
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	for _, m := range []struct {
		name string
		a, b []byte
	}{
		{"metadata.managedFields[0].fieldsV1", a.Metadata.ManagedFields().Member(0, "fieldsV1"), b.Metadata.ManagedFields().Member(0, "fieldsV1")},
		{"metadata.managedFields[1].fieldsV1", a.Metadata.ManagedFields().Member(1, "fieldsV1"), b.Metadata.ManagedFields().Member(1, "fieldsV1")},
		{"spec.volumes", a.Spec.extra.Get("volumes"), b.Spec.extra.Get("volumes")},
		{"spec.containers[0].env", a.Spec.Containers[0].extra.Get("env"), b.Spec.Containers[0].extra.Get("env")},
		{"status.containerStatuses", a.Status.extra.Get("containerStatuses"), b.Status.extra.Get("containerStatuses")},
	} {
		if m.a == nil || unsafe.SliceData(m.a) != unsafe.SliceData(m.b) {
			t.Fatalf("%s: two copies (or none), want one shared", m.name)
		}
	}
}

// Replicas whose managedFields entries differ in their times still share the
// entries' field sets, the bulk of the entries.
func TestReplicasShareManagedFieldSets(t *testing.T) {
	data := readRealPod(t)
	later := bytes.ReplaceAll(data, []byte(`"time":"2026-12-02T10:37:31Z"`), []byte(`"time":"2026-12-02T11:00:00Z"`))
	if bytes.Equal(later, data) {
		t.Fatalf("the real pod has no managedFields time to change")
	}
	a, err := DecodePod(data)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	b, err := DecodePod(later)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	ma, mb := a.Metadata.ManagedFields(), b.Metadata.ManagedFields()
	if ma.Len() != 2 || mb.Len() != 2 {
		t.Fatalf("%d and %d managedFields entries kept one by one, want 2", ma.Len(), mb.Len())
	}
	for i := range ma.Len() {
		if fa, fb := ma.Member(i, "fieldsV1"), mb.Member(i, "fieldsV1"); fa == nil || unsafe.SliceData(fa) != unsafe.SliceData(fb) {
			t.Fatalf("managedFields[%d].fieldsV1: two copies (or none), want one shared", i)
		}
	}
	encodesAs(t, "the later replica did not round-trip", b, later)
}
