package watch

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type fuzzEvent struct {
	Type   EventType
	Offset int64
	Raw    string
}

// fuzzDecode decodes data to the first error, keeping the raw events.
func fuzzDecode(r io.Reader) ([]fuzzEvent, error) {
	d := NewDecoder(r, testCodec, DecoderOptions{MaxFrameSize: 64 << 10, KeepRaw: true})
	var evs []fuzzEvent
	for {
		ev, err := d.Decode()
		if err != nil {
			return evs, err
		}
		evs = append(evs, fuzzEvent{ev.Type, ev.Offset, string(ev.Raw)})
	}
}

func FuzzDecoder(f *testing.F) {
	pod := readRealPod(f)
	added := event(Added, pod)
	for _, seed := range []string{
		added + "\n",
		added + "\n" + event(Modified, pod) + "\n" + event(Deleted, pod) + "\n",
		event(Bookmark, `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}}`) + "\n",
		event(Error, goneStatus) + "\n",
		added[:len(added)/2],
		added + "\n" + added[:len(added)-1],
		`{"object":` + pod + `,"type":"MODIFIED"}`,
		event("RESIZED", `{}`),
		"[]", "", " \n ",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := fuzzDecode(bytes.NewReader(data))
		info := classify(err)
		switch info.Kind {
		case "eof", "unexpected-eof", "syntax", "too-large", "unknown-type", "object":
		default:
			t.Fatalf("got error %v (%s), want a typed decoding error", err, info.Kind)
		}
		for _, ev := range evs {
			if end := ev.Offset + int64(len(ev.Raw)); end > int64(len(data)) || string(data[ev.Offset:end]) != ev.Raw {
				t.Fatalf("event at %d: Raw %q is not the input there", ev.Offset, ev.Raw)
			}
		}
		// Where reads end must not change what is decoded.
		evs1, err1 := fuzzDecode(iotest.OneByteReader(bytes.NewReader(data)))
		if diff := cmp.Diff(evs, evs1); diff != "" {
			t.Fatalf("one byte per read decodes differently (-whole +bytewise):\n%s", diff)
		}
		if diff := cmp.Diff(info, classify(err1)); diff != "" {
			t.Fatalf("one byte per read fails differently (-whole +bytewise):\n%s", diff)
		}
	})
}
