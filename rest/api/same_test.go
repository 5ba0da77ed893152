package api

import (
	"bytes"
	"testing"
)

// Two pods held the same way are the same spec and status without encoding
// either; a change to a typed field or a kept member is seen; and whenever
// SameSpec or SameStatus holds, the JSON is equal too.
func TestSameSpecAndStatus(t *testing.T) {
	u := readRealPodProtobuf(t)
	js := readRecordedPodJSON(t)
	fromJSON := func() *Pod {
		p, err := DecodePod(js)
		if err != nil {
			t.Fatalf("DecodePod: %v", err)
		}
		return p
	}
	edits := []struct {
		name         string
		edit         func(*Pod)
		spec, status bool // still the same after the edit
	}{
		{"unchanged", func(*Pod) {}, true, true},
		{"node name", func(p *Pod) { p.Spec.NodeName = "node-z" }, false, true},
		{"image", func(p *Pod) { p.Spec.Containers[1].Image = "nginx:2" }, false, true},
		{"toleration seconds", func(p *Pod) {
			v := *p.Spec.Tolerations[0].TolerationSeconds + 1
			p.Spec.Tolerations[0].TolerationSeconds = &v
		}, false, true},
		{"a kept spec member", func(p *Pod) { p.Spec.extra = p.Spec.extra[:len(p.Spec.extra)-1] }, false, true},
		{"phase", func(p *Pod) { p.Status.Phase = "Failed" }, true, false},
	}
	for _, format := range []string{"json", "protobuf"} {
		decode := func() *Pod {
			if format == "json" {
				return fromJSON()
			}
			return decodeProtobuf(t, u)
		}
		for _, tc := range edits {
			a, b := decode(), decode().DeepCopy()
			tc.edit(b)
			if got := a.SameSpec(b); got != tc.spec {
				t.Errorf("%s, %s: SameSpec %v, want %v", format, tc.name, got, tc.spec)
			}
			if got := a.SameStatus(b); got != tc.status {
				t.Errorf("%s, %s: SameStatus %v, want %v", format, tc.name, got, tc.status)
			}
			if a.SameSpec(b) && !bytes.Equal(a.SpecJSON(), b.SpecJSON()) {
				t.Errorf("%s, %s: SameSpec, yet the specs' JSON differ", format, tc.name)
			}
			if a.SameStatus(b) && !bytes.Equal(a.StatusJSON(), b.StatusJSON()) {
				t.Errorf("%s, %s: SameStatus, yet the statuses' JSON differ", format, tc.name)
			}
		}
	}
}
