package trace

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/wire"
)

// TestCBORFramerSplits feeds the real apiserver's CBOR watch cut at every
// 97th byte, and in one piece: each item is found from its headers with its
// tag and event, and never depends on how the bytes arrived.
func TestCBORFramerSplits(t *testing.T) {
	stream, err := os.ReadFile("../../rest/cborwire/testdata/watch.cborseq")
	if err != nil {
		t.Fatal(err)
	}
	var want []*Event
	f := newFramer(wire.CBOR)
	f.feed(stream, 0, func(e *Event, _ []byte) { want = append(want, e) })
	var types []string
	var end int64
	for _, e := range want {
		if e.CBOR == nil || e.CBOR.Tag != 55799 || e.CBOR.Head != "d9d9f7a2" || e.Error != "" || e.Offset != end {
			t.Fatalf("event %+v: want a self-described item at %d", e, end)
		}
		types = append(types, e.Type)
		end += int64(e.Bytes)
	}
	if d := cmp.Diff([]string{"ADDED", "BOOKMARK", "ADDED", "MODIFIED", "MODIFIED", "DELETED", "BOOKMARK"}, types); d != "" || end != int64(len(stream)) {
		t.Fatalf("types (-want +got):\n%s; %d of %d bytes framed", d, end, len(stream))
	}
	if want[0].Name != "recorded" || want[1].Annotations["k8s.io/initial-events-end"] != "true" {
		t.Errorf("first events: %+v, %+v", want[0], want[1])
	}
	for cut := 0; cut <= len(stream); cut += 97 {
		f := newFramer(wire.CBOR)
		var got []*Event
		emit := func(e *Event, _ []byte) { got = append(got, e) }
		f.feed(stream[:cut], 0, emit)
		f.feed(stream[cut:], int64(cut), emit)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("cut at %d (-whole +cut):\n%s", cut, diff)
		}
		if f.leftover() != 0 {
			t.Fatalf("cut at %d: %d bytes left over", cut, f.leftover())
		}
	}
}
