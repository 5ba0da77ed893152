package jsonx

import (
	"bytes"
	"os"
	"testing"

	"github.com/podwatch/podwatch/internal/stream"
)

// BenchmarkNextJSON frames, with the Reader's Next and a Framer, 200 copies of a real 15 KB pod, one per line: the
// framing every decoder of a JSON stream pays.
func BenchmarkNextJSON(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(append(bytes.TrimSpace(pod), '\n'), 200)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var f Framer
	for b.Loop() {
		r := stream.NewReader(bytes.NewReader(data), 1<<20)
		n := 0
		for {
			if _, _, err := r.Next(&f); err != nil {
				break
			}
			n++
		}
		if n != 200 {
			b.Fatalf("framed %d values, want 200", n)
		}
	}
}
