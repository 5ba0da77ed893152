package cache

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/podwatch/podwatch/rest/api"
)

// storePods decodes n copies of the real pod, named apart, at resourceVersions
// 1..n.
func storePods(b *testing.B, n int) []*api.Pod {
	b.Helper()
	data, err := os.ReadFile("../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	pods := make([]*api.Pod, n)
	for i := range pods {
		p, err := api.DecodePod(data)
		if err != nil {
			b.Fatal(err)
		}
		p.Metadata.Name, p.Metadata.ResourceVersion = fmt.Sprintf("pod-%05d", i), strconv.Itoa(i+1)
		pods[i] = p
	}
	return pods
}

// BenchmarkUndeltaUpdate is the store's cost per watch event with N pods held:
// one keyed update and one push of the whole set (N pointers).
func BenchmarkUndeltaUpdate(b *testing.B) {
	for _, n := range []int{110, 5000, 50000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			pods := storePods(b, min(n, 110))
			for len(pods) < n {
				p := *pods[len(pods)%110]
				p.Metadata.Name, p.Metadata.ResourceVersion = fmt.Sprintf("pod-%05d", len(pods)), strconv.Itoa(len(pods)+1)
				pods = append(pods, &p)
			}
			var pushed int
			s := NewUndeltaStore(func(items []*api.Pod, _ string) { pushed += len(items) }, MetaNamespaceKey[*api.Pod])
			if err := s.Replace(pods, strconv.Itoa(n)); err != nil {
				b.Fatal(err)
			}
			next := make([]*api.Pod, n)
			for i, p := range pods {
				c := *p
				next[i] = &c
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := next[i%n]
				p.Metadata.ResourceVersion = strconv.Itoa(n + 1 + i)
				if err := s.Update(p); err != nil {
					b.Fatal(err)
				}
			}
			if pushed == 0 {
				b.Fatal("nothing pushed")
			}
		})
	}
}
