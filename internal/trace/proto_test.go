package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// protoStream is the protobuf twin of watchStream: a pod event, the
// bookmark ending a watch list, a graceful delete, and a 410.
func protoStream(t testing.TB) (stream []byte, frames [][]byte, raws [][]byte) {
	raws = [][]byte{
		tracetest.PBPod(t, "web-1", "215", false, nil),
		tracetest.PBPod(t, "", "215", false, map[string]string{"k8s.io/initial-events-end": "true"}),
		tracetest.PBPod(t, "web-1", "220", true, nil),
		tracetest.PBStatus(t, 410, "Expired", "too old resource version: 224 (227)"),
	}
	types := []string{"ADDED", "BOOKMARK", "MODIFIED", "ERROR"}
	for i, raw := range raws {
		kind := "Pod"
		if types[i] == "ERROR" {
			kind = "Status"
		}
		f := tracetest.PBFrame(types[i], kind, raw)
		frames = append(frames, f)
		stream = append(stream, f...)
	}
	return stream, frames, raws
}

func wantProtoEvents(t testing.TB) []*Event {
	_, frames, raws := protoStream(t)
	evs := []*Event{
		{Type: "ADDED", Namespace: "shop", Name: "web-1", ResourceVersion: "215"},
		{Type: "BOOKMARK", ResourceVersion: "215", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}},
		{Type: "MODIFIED", Namespace: "shop", Name: "web-1", ResourceVersion: "220", Deleting: true},
		{Type: "ERROR", Status: &Status{Code: 410, Reason: "Expired", Message: "too old resource version: 224 (227)"}},
	}
	off := 0
	for i, e := range evs {
		f := frames[i]
		kind := "Pod"
		if e.Type == "ERROR" {
			kind = "Status"
		}
		e.Offset, e.Bytes = int64(off), len(f)
		// The prefix announces the frame's bytes after it.
		e.Prefix = &Prefix{Hex: fmt.Sprintf("%08x", len(f)-4), Length: uint32(len(f) - 4)}
		e.Envelope = &Envelope{APIVersion: "v1", Kind: kind, ObjectBytes: len(raws[i])}
		e.Explain = explainEvent(e)
		off += len(f)
	}
	return evs
}

// TestProtobufFramerSplits feeds a protobuf watch cut at every byte, and in
// one piece: each frame is found with its prefix, envelope and object, and
// never depends on how the bytes arrived.
func TestProtobufFramerSplits(t *testing.T) {
	stream, _, _ := protoStream(t)
	want := wantProtoEvents(t)
	for cut := 0; cut <= len(stream); cut++ {
		f := newFramer(wire.Protobuf)
		var got []*Event
		emit := func(e *Event, _ []byte) { got = append(got, e) }
		f.feed(stream[:cut], 0, emit)
		f.feed(stream[cut:], int64(cut), emit)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("cut at %d (-want +got):\n%s", cut, diff)
		}
		if f.leftover() != 0 {
			t.Fatalf("cut at %d: %d bytes left over", cut, f.leftover())
		}
	}
}

// TestProtobufBadFrames gives the framer frames the client's decoder
// refuses: each is one event step holding the typed error, and framing goes
// on after it while the prefixes still say where frames end.
func TestProtobufBadFrames(t *testing.T) {
	good := tracetest.PBFrame("ADDED", "Pod", tracetest.PBPod(t, "web-1", "215", false, nil))
	wrongMagic := bytes.Replace(bytes.Clone(good), protowire.Magic, []byte("k9s\x00"), 1)
	unknownKind := tracetest.PBFrame("ADDED", "Secret", tracetest.PBPod(t, "web-1", "215", false, nil))
	noType := protoenc.AppendWatchFrame(nil, "", protoenc.AppendEnvelope(nil, "v1", "Pod", nil))
	// A WatchEvent whose type field announces more bytes than the frame has.
	cutField := binary.BigEndian.AppendUint32(nil, 3)
	cutField = append(cutField, 0x0a, 0x7f, 'A')
	huge := binary.BigEndian.AppendUint32(nil, 0xffffffff)
	tests := []struct {
		name   string
		in     []byte
		errs   []string // the error of each event, "" for a good one
		broken bool
	}{
		{"wrong magic", append(bytes.Clone(wrongMagic), good...), []string{"protobuf: envelope at byte", ""}, false},
		{"unknown kind", append(bytes.Clone(unknownKind), good...), []string{"Secret", ""}, false},
		{"no type", noType, []string{"watch event has no type"}, false},
		{"a field past the frame", append(bytes.Clone(cutField), good...), []string{"message ends inside", ""}, false},
		{"a 4 GiB length", append(bytes.Clone(good), append(huge, good...)...), []string{"", "longer than the 16777216-byte limit"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for cut := 0; cut <= len(tt.in); cut++ {
				f := newFramer(wire.Protobuf)
				var got []*Event
				emit := func(e *Event, _ []byte) { got = append(got, e) }
				f.feed(tt.in[:cut], 0, emit)
				f.feed(tt.in[cut:], int64(cut), emit)
				if len(got) != len(tt.errs) {
					t.Fatalf("cut at %d: %d events, want %d: %+v", cut, len(got), len(tt.errs), got)
				}
				for i, e := range got {
					switch {
					case tt.errs[i] == "" && e.Error != "":
						t.Fatalf("cut at %d: event %d: unexpected error %q", cut, i, e.Error)
					case !strings.Contains(e.Error, tt.errs[i]):
						t.Fatalf("cut at %d: event %d: error %q, want it to say %q", cut, i, e.Error, tt.errs[i])
					case tt.errs[i] != "" && (e.Prefix == nil || e.Explain != explainBadFrame):
						t.Fatalf("cut at %d: bad frame %d told without its prefix or explanation: %+v", cut, i, e)
					}
				}
				if f.broken != tt.broken {
					t.Fatalf("cut at %d: framing broken %t, want %t", cut, f.broken, tt.broken)
				}
			}
		})
	}
}

// FuzzProtobufFramer checks that any bytes, cut anywhere, are framed as
// protobuf without a panic and the same way whatever the cut.
func FuzzProtobufFramer(f *testing.F) {
	stream, _, _ := protoStream(f)
	f.Add(stream, 10)
	f.Add(binary.BigEndian.AppendUint32(nil, 0xffffffff), 2)
	f.Add([]byte("\x00\x00\x00\x02\x0a\x00"), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		whole, split := newFramer(wire.Protobuf), newFramer(wire.Protobuf)
		var a, b []*Event
		whole.feed(data, 0, func(e *Event, _ []byte) { a = append(a, e) })
		split.feed(data[:cut], 0, func(e *Event, _ []byte) { b = append(b, e) })
		split.feed(data[cut:], int64(cut), func(e *Event, _ []byte) { b = append(b, e) })
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("framed differently when cut at %d (-whole +cut):\n%s", cut, diff)
		}
	})
}

// protoServer is fakeServer in protobuf: a list of one pod, then a watch
// whose four events come in one write; it returns the watch body's length.
func protoServer(t *testing.T) (*httptest.Server, int) {
	watch := append(tracetest.PBFrame("ADDED", "Pod", tracetest.PBPod(t, "b", "11", false, nil)), tracetest.PBFrame("MODIFIED", "Pod", tracetest.PBPod(t, "a", "12", false, nil))...)
	watch = append(watch, tracetest.PBFrame("BOOKMARK", "Pod", tracetest.PBPod(t, "", "13", false, nil))...)
	watch = append(watch, tracetest.PBFrame("DELETED", "Pod", tracetest.PBPod(t, "b", "14", false, nil))...)
	list := tracetest.PBList(t, "10", tracetest.PBPod(t, "a", "9", false, nil))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", wire.ContentTypeProtobuf)
			w.Write(list)
			return
		}
		w.Header().Set("Content-Type", wire.ContentTypeProtobuf+";stream=watch")
		w.Write(watch)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, len(watch)
}

// TestProtobufTrace runs a reflector in protobuf against protoServer: the
// JSON trace shows the list's envelope and item count, each event's frame
// and envelope, and the summary the watch body's bytes per event.
func TestProtobufTrace(t *testing.T) {
	srv, watchBytes := protoServer(t)
	var frames, listItems int
	var stop *Stop
	for _, line := range strings.Split(strings.TrimSpace(runTracedAs(t, srv, wire.ContentTypeProtobuf)), "\n") {
		var s struct {
			Kind    string
			Event   *Event
			BodyEnd *BodyEnd `json:"body-end"`
			Stop    *Stop
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("not JSON: %v: %s", err, line)
		}
		switch {
		case s.Event != nil:
			e := s.Event
			if e.Error != "" || e.Prefix == nil || e.Envelope == nil {
				t.Fatalf("event without its frame: %s", line)
			}
			if int(e.Prefix.Length) != e.Bytes-4 || e.Envelope.Kind != "Pod" || e.Envelope.APIVersion != "v1" || e.Envelope.ObjectBytes == 0 {
				t.Errorf("frame told wrong: %s", line)
			}
			frames++
		case s.BodyEnd != nil && s.BodyEnd.Envelope != nil:
			env := s.BodyEnd.Envelope
			if env.Kind != "PodList" || env.Items == nil {
				t.Fatalf("list envelope told wrong: %s", line)
			}
			listItems = *env.Items
		case s.Stop != nil:
			stop = s.Stop
		}
	}
	if frames != 4 || listItems != 1 {
		t.Fatalf("told %d frames and a list of %d items, want 4 and 1", frames, listItems)
	}
	if stop == nil || stop.WatchBytes != int64(watchBytes) || stop.Events != 4 {
		t.Fatalf("summary %+v, want %d watch bytes and 4 events", stop, watchBytes)
	}
	// To one decimal.
	if want := float64(watchBytes) / 4; math.Abs(stop.BytesPerEvent-want) > 0.05 {
		t.Errorf("bytesPerEvent %v, want %v", stop.BytesPerEvent, want)
	}
}
