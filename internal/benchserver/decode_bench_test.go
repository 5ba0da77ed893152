package benchserver

import (
	"os"
	"runtime"
	"testing"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

// variedPods returns the protobuf Pod messages of copies first..first+n-1 of
// the recorded pod, varied as replicas vary (the bench's --vary).
func variedPods(tb testing.TB, first, n int) [][]byte {
	tb.Helper()
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		tb.Fatal(err)
	}
	p, err := NewPods(tmpl, first+n, "node-1", PodsOptions{Vary: true})
	if err != nil {
		tb.Fatal(err)
	}
	pp, err := p.protobuf()
	if err != nil {
		tb.Fatal(err)
	}
	msgs := make([][]byte, n)
	var v values
	for i := range n {
		v.set(pp, first+i, int64(first+i+1))
		if msgs[i], err = pp.appendPod(nil, &v); err != nil {
			tb.Fatal(err)
		}
	}
	return msgs
}

// BenchmarkDecodeVariedPods decodes copies varied as replicas are, each one
// unlike any before (its times, IDs and pod IP), as the 150,000-pod scenario
// reads its list: the cost of first sight, sharing included, and the live
// heap each decoded pod holds ("live-B/pod", 5,000 pods kept as a store
// keeps them).
func BenchmarkDecodeVariedPods(b *testing.B) {
	const kept = 5000
	msgs := variedPods(b, 0, kept)
	tm := meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}
	store := make([]*api.Pod, kept)
	decodeAll := func() {
		for i, m := range msgs {
			p, err := api.DecodePodProtobuf(tm, m)
			if err != nil {
				b.Fatal(err)
			}
			store[i] = p
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	decodeAll()
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := float64(after.HeapAlloc-before.HeapAlloc) / kept
	// Each pass decodes copies no pod of the store shares its varied runs
	// with: the store is emptied first, so their shared runs are collected.
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	b.SetBytes(int64(size / kept))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%kept == 0 {
			b.StopTimer()
			clear(store)
			runtime.GC()
			runtime.GC() // the shared table's cleanups run after the first
			b.StartTimer()
		}
		p, err := api.DecodePodProtobuf(tm, msgs[i%kept])
		if err != nil {
			b.Fatal(err)
		}
		store[i%kept] = p
		i++
	}
	b.ReportMetric(live, "live-B/pod")
}

// BenchmarkListPageProtobuf makes one 500-pod page of a protobuf list, as
// the paged scenario's server makes each page whole before it answers.
func BenchmarkListPageProtobuf(b *testing.B) {
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPods(tmpl, 5000, "node-1", PodsOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{Pods: p, M: 1}
	if err := s.WarmProtobuf(); err != nil {
		b.Fatal(err)
	}
	pp, _ := p.protobuf()
	b.ReportAllocs()
	var body []byte
	for b.Loop() {
		body, err = s.listProtobuf(body, pp, "500", "")
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
	}
}
