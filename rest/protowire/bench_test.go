package protowire

import (
	"os"
	"testing"
)

// BenchmarkTranscodePod measures turning the recorded 10 KB protobuf pod into
// its 15 KB JSON: the cost protobuf adds before the JSON decoder runs.
func BenchmarkTranscodePod(b *testing.B) {
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	var tc Transcoder
	b.SetBytes(int64(len(pb)))
	b.ReportAllocs()
	for b.Loop() {
		u, err := ParseEnvelope(pb, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tc.Object(u); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodePod measures the other way: the recorded pod's JSON to the
// protobuf the apiserver sends, as podwatch's servers answer a protobuf client.
func BenchmarkEncodePod(b *testing.B) {
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	js := transcode(b, pb)
	var enc encoder
	var out []byte
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if out, err = enc.Envelope(out[:0], js); err != nil {
			b.Fatal(err)
		}
	}
}
