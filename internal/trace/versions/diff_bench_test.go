package versions

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkDiffJSON diffs a 9 KB pod (with managedFields) against itself
// with its image and phase changed: the cost --diff adds to each MODIFIED.
func BenchmarkDiffJSON(b *testing.B) {
	prev, err := os.ReadFile("../../podconfig/testdata/merged-pod.json")
	if err != nil {
		b.Fatal(err)
	}
	next := bytes.Replace(prev, []byte(`nginx:1.27.3"`), []byte(`nginx:1.28.0"`), 1)
	next = bytes.Replace(next, []byte(`"phase":"Running"`), []byte(`"phase":"Failed"`), 1)
	b.SetBytes(int64(len(next)))
	b.ReportAllocs()
	for b.Loop() {
		changes, err := DiffJSON(prev, next, DiffFields)
		if err != nil || len(changes) != 2 {
			b.Fatalf("%v, %v", changes, err)
		}
	}
}
