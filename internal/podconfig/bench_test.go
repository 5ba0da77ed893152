package podconfig

import (
	"fmt"
	"os"
	"testing"

	"github.com/podwatch/podwatch/rest/api"
)

// realPods returns n copies of the recorded real pod (15 KB of JSON each), as an
// api push would carry them.
func realPods(b *testing.B, n int) []*api.Pod {
	data, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatalf("read pod: %v", err)
	}
	out := make([]*api.Pod, n)
	for i := range out {
		p, err := api.DecodePod(data)
		if err != nil {
			b.Fatalf("DecodePod: %v", err)
		}
		p.Metadata.Name = fmt.Sprintf("pod-%03d", i)
		p.Metadata.UID = fmt.Sprintf("uid-%03d", i)
		out[i] = p
	}
	return out
}

// BenchmarkMergeUnchangedSET is the common case of an api push: 300 pods, none
// changed (same resourceVersions).
func BenchmarkMergeUnchangedSET(b *testing.B) {
	pods := realPods(b, 300)
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	s.merge(SourceAPI, PodUpdate{Op: SET, Pods: pods})
	b.ReportAllocs()
	for b.Loop() {
		if out := s.merge(SourceAPI, PodUpdate{Op: SET, Pods: pods}); len(out) != 0 {
			b.Fatalf("got %d updates, want none", len(out))
		}
	}
}

// BenchmarkMergeOneStatusChange is a push after one pod's status moved on: one
// full compare and a copy, the other 299 on the fast path.
func BenchmarkMergeOneStatusChange(b *testing.B) {
	pods := realPods(b, 300)
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	s.merge(SourceAPI, PodUpdate{Op: SET, Pods: pods})
	next := append([]*api.Pod(nil), pods...)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		p := pods[7].DeepCopy()
		p.Metadata.ResourceVersion = fmt.Sprint(1000 + i)
		p.Status.PodIP = fmt.Sprintf("10.0.%d.%d", i/250%250, i%250)
		next[7] = p
		if out := s.merge(SourceAPI, PodUpdate{Op: SET, Pods: next}); len(out) != 1 || out[0].Op != RECONCILE {
			b.Fatalf("got %v, want one RECONCILE", summary(out))
		}
	}
}

// BenchmarkMergeStaticSET is a periodic file SET of 20 static pods without
// resourceVersions: every pod compared in full.
func BenchmarkMergeStaticSET(b *testing.B) {
	pods := realPods(b, 20)
	for _, p := range pods {
		p.Metadata.ResourceVersion = ""
	}
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	s.merge(SourceFile, PodUpdate{Op: SET, Pods: pods})
	b.ReportAllocs()
	for b.Loop() {
		if out := s.merge(SourceFile, PodUpdate{Op: SET, Pods: pods}); len(out) != 0 {
			b.Fatalf("got %d updates, want none", len(out))
		}
	}
}
