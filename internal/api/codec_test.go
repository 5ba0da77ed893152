package api

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
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
	out, err := p.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	if diff := cmp.Diff(asJSONValue(t, orig), asJSONValue(t, out)); diff != "" {
		t.Fatalf("the pod changed when its input was overwritten (-want +got):\n%s", diff)
	}
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
		{"metadata.managedFields", a.Metadata.Unmodelled("managedFields"), b.Metadata.Unmodelled("managedFields")},
		{"spec.volumes", a.Spec.extra.Get("volumes"), b.Spec.extra.Get("volumes")},
		{"spec.containers[0].env", a.Spec.Containers[0].extra.Get("env"), b.Spec.Containers[0].extra.Get("env")},
		{"status.containerStatuses", a.Status.extra.Get("containerStatuses"), b.Status.extra.Get("containerStatuses")},
	} {
		if m.a == nil || unsafe.SliceData(m.a) != unsafe.SliceData(m.b) {
			t.Fatalf("%s: two copies (or none), want one shared", m.name)
		}
	}
}
