package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/wire"
)

// A watch stream as the apiserver sends it, from the bundled recordings'
// shapes: a pod event, a bookmark ending a watch list, an ERROR, with a brace
// and an escaped quote inside strings.
const watchStream = `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"shop","resourceVersion":"215","annotations":{"note":"a } and a \" here"}},"spec":{"nodeName":"node-a"}}}
{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"215","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}
{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web-1","namespace":"shop","resourceVersion":"220","deletionTimestamp":"2026-12-02T20:42:09Z"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 224 (227)","reason":"Expired","code":410}}
`

func wantEvents() []*Event {
	evs := []*Event{
		{Type: "ADDED", Namespace: "shop", Name: "web-1", ResourceVersion: "215", Offset: 0},
		{Type: "BOOKMARK", ResourceVersion: "215", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}},
		{Type: "MODIFIED", Namespace: "shop", Name: "web-1", ResourceVersion: "220", Deleting: true},
		{Type: "ERROR", Status: &Status{Code: 410, Reason: "Expired", Message: "too old resource version: 224 (227)"}},
	}
	off := 0
	for i, line := range strings.SplitAfter(watchStream, "\n")[:len(evs)] {
		evs[i].Offset, evs[i].Bytes = int64(off), len(line)-1
		evs[i].Explain = explainEvent(evs[i])
		off += len(line)
	}
	return evs
}

// TestFramerSplits feeds the watchStream cut at every byte, and in one piece: the
// events found never depend on how the bytes arrived.
func TestFramerSplits(t *testing.T) {
	want := wantEvents()
	for cut := 0; cut <= len(watchStream); cut++ {
		f := newFramer(wire.JSON)
		var got []*Event
		emit := func(e *Event, _ []byte) { got = append(got, e) }
		f.feed([]byte(watchStream[:cut]), 0, emit)
		f.feed([]byte(watchStream[cut:]), int64(cut), emit)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("cut at %d (-want +got):\n%s", cut, diff)
		}
		if f.leftover() != 0 {
			t.Fatalf("cut at %d: %d bytes left over", cut, f.leftover())
		}
	}
}

func TestFramerBadInput(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		events   int
		leftover int
	}{
		{"not JSON", "<html>", 0, 0},
		{"garbage after an event", `{"type":"ADDED","object":{}}` + "\nnope", 1, 0},
		{"cut inside an event", `{"type":"ADDED","object":{"metadata":`, 0, 37},
		{"unknown type", `{"type":"SHRUG","object":{}}`, 1, 0},
		{"not an object inside", `{"type":"ADDED","object":[1,2]}`, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFramer(wire.JSON)
			n := 0
			f.feed([]byte(tt.in), 0, func(*Event, []byte) { n++ })
			if n != tt.events || f.leftover() != tt.leftover {
				t.Fatalf("got %d events and %d bytes left, want %d and %d", n, f.leftover(), tt.events, tt.leftover)
			}
		})
	}
}

// FuzzFramer checks that any bytes, cut anywhere, are framed without a panic
// and the same way whatever the cut.
func FuzzFramer(f *testing.F) {
	f.Add([]byte(watchStream), 10)
	f.Add([]byte(`{"type":"ADDED","object":{"metadata":{"name":"\u00e9\\"}}}`), 3)
	f.Add([]byte(`{{{{"`), 2)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		whole, split := newFramer(wire.JSON), newFramer(wire.JSON)
		var a, b []*Event
		whole.feed(data, 0, func(e *Event, _ []byte) { a = append(a, e) })
		split.feed(data[:cut], 0, func(e *Event, _ []byte) { b = append(b, e) })
		split.feed(data[cut:], int64(cut), func(e *Event, _ []byte) { b = append(b, e) })
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("framed differently when cut at %d (-whole +cut):\n%s", cut, diff)
		}
	})
}
