package stream

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkNextJSON frames 200 copies of a real 15 KB pod, one per line: the
// framing every decoder of a JSON stream pays.
func BenchmarkNextJSON(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	stream := bytes.Repeat(append(bytes.TrimSpace(pod), '\n'), 200)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var f JSONFramer
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream), 1<<20)
		n := 0
		for {
			if _, _, err := r.NextJSON(&f, 0); err != nil {
				break
			}
			n++
		}
		if n != 200 {
			b.Fatalf("framed %d values, want 200", n)
		}
	}
}
