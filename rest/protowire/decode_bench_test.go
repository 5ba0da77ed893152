package protowire_test

import (
	"os"
	"testing"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// BenchmarkDecodePod reads the recorded pod straight from the wire:
// "repeated" as a pod whose kept runs equal those of pods read before (a
// replica, the next version of a pod), "first sight" as one unlike any
// before, each of its kept runs checked (walked).
func BenchmarkDecodePod(b *testing.B) {
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		b.Fatal(err)
	}
	u, err := protowire.ParseEnvelope(pb, 0)
	if err != nil {
		b.Fatal(err)
	}
	tm := meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}
	for _, tc := range []struct {
		name  string
		every bool
	}{{"repeated", false}, {"first sight", true}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.every {
				defer protowire.CheckEveryRun()()
			}
			b.SetBytes(int64(len(u.Raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := api.DecodePodProtobuf(tm, u.Raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
