package watch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
)

func TestDecodeFraming(t *testing.T) {
	a1, m2 := event(Added, obj("a", "1")), event(Modified, obj("b", "2"))
	objA := testObj{Name: "a", ResourceVersion: "1", Others: []string{"spec"}}
	objB := testObj{Name: "b", ResourceVersion: "2", Others: []string{"spec"}}
	tricky := `{"metadata":{"name":"a{b}\"c\\","resourceVersion":"7","annotations":{"x":"}}}{{{","y":"\\\"\\"}},"spec":"{\"}"}`
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []got
	}{
		{"empty stream", nil, nil},
		{"only whitespace", []string{" \n\t\r\n"}, nil},
		{"one event", []string{a1 + "\n"}, []got{{Added, objA, 0}}},
		{"no trailing newline", []string{a1}, []got{{Added, objA, 0}}},
		{"several events in one read", []string{a1 + "\n" + m2 + "\n" + a1 + "\n"}, []got{
			{Added, objA, 0}, {Modified, objB, int64(len(a1) + 1)}, {Added, objA, int64(len(a1) + len(m2) + 2)},
		}},
		{"events split across reads", []string{a1[:5], a1[5:30], a1[30:] + "\n" + m2[:1], m2[1:2], m2[2:] + "\n"}, []got{
			{Added, objA, 0}, {Modified, objB, int64(len(a1) + 1)},
		}},
		{"one byte per read", strings.Split(a1+"\n"+m2+"\n", ""), []got{
			{Added, objA, 0}, {Modified, objB, int64(len(a1) + 1)},
		}},
		{"whitespace between events", []string{"\n \t", a1, "\r\n\n  ", m2, " \n"}, []got{
			{Added, objA, 3}, {Modified, objB, int64(3 + len(a1) + 5)},
		}},
		{"no newline between events", []string{a1 + m2}, []got{{Added, objA, 0}, {Modified, objB, int64(len(a1))}}},
		{"braces and escaped quotes in strings", []string{event(Added, tricky)}, []got{{Added, testObj{
			Name: `a{b}"c\`, ResourceVersion: "7", Annotations: map[string]string{"x": "}}}{{{", "y": `\"\`}, Others: []string{"spec"},
		}, 0}}},
		{"tricky strings split everywhere", strings.Split(event(Added, tricky), ""), []got{{Added, testObj{
			Name: `a{b}"c\`, ResourceVersion: "7", Annotations: map[string]string{"x": "}}}{{{", "y": `\"\`}, Others: []string{"spec"},
		}, 0}}},
		{"unicode escapes", []string{`{"type":"ADD\u0045D","obj\u0065ct":{"metadata":{"name":"\u00e9\u007d\ud83d\ude00","resourceVersion":"3"}}}`}, []got{
			{Added, testObj{Name: "é}😀", ResourceVersion: "3"}, 0},
		}},
		{"object before type", []string{`{"object":` + obj("a", "1") + `,"type":"DELETED"}`}, []got{{Deleted, objA, 0}}},
		{"object not the last nested object", []string{`{"object":` + obj("a", "1") + `,"type":"ADDED","x":{"y":{}}}`}, []got{{Added, objA, 0}}},
		{"other envelope members skipped", []string{`{"kind":"x","type":"ADDED","extra":[1,{"a":"}"},null,true],"object":` + obj("a", "1") + `,"n":-1.5e3}`}, []got{
			{Added, objA, 0},
		}},
		{"spaces inside the envelope", []string{"{ \"type\" :\t\"ADDED\" ,\n\"object\" : " + obj("a", "1") + " }"}, []got{{Added, objA, 0}}},
		{"every event type", []string{
			event(Added, obj("a", "1")), event(Modified, obj("a", "1")), event(Deleted, obj("a", "1")),
			event(Bookmark, `{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}`),
		}, []got{
			{Added, objA, 0}, {Modified, objA, int64(len(a1))}, {Deleted, objA, int64(len(a1) + len(event(Modified, obj("a", "1"))))},
			{Bookmark, testObj{ResourceVersion: "9", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}}, int64(len(a1) + len(event(Modified, obj("a", "1"))) + len(event(Deleted, obj("a", "1"))))},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := decodeAll(&chunkReader{chunks: tc.chunks}, DecoderOptions{})
			if err != io.EOF {
				t.Fatalf("got error %v, want io.EOF", err)
			}
			if diff := cmp.Diff(tc.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	a1 := event(Added, obj("a", "1")) + "\n"
	n := int64(len(a1))
	for _, tc := range []struct {
		name   string
		input  string
		events int
		want   errInfo
	}{
		{"unknown type", a1 + event("RESIZED", obj("a", "2")), 1, errInfo{Kind: "unknown-type", Offset: n, Type: "RESIZED"}},
		{"lower-case type", event("added", obj("a", "2")), 0, errInfo{Kind: "unknown-type", Type: "added"}},
		{"top-level array", a1 + `[1]`, 1, errInfo{Kind: "syntax", Offset: n}},
		{"top-level string", `"x"`, 0, errInfo{Kind: "syntax"}},
		{"top-level number", "  12", 0, errInfo{Kind: "syntax", Offset: 2}},
		{"garbage bytes", "\x00\xff{", 0, errInfo{Kind: "syntax"}},
		{"garbage after an event", a1 + "xyz", 1, errInfo{Kind: "syntax", Offset: n}},
		{"missing type", `{"object":{}}`, 0, errInfo{Kind: "syntax"}},
		{"missing object", a1 + `{"type":"ADDED"}`, 1, errInfo{Kind: "syntax", Offset: n}},
		{"empty envelope", `{}`, 0, errInfo{Kind: "syntax"}},
		{"object not an object", `{"type":"ADDED","object":[]}`, 0, errInfo{Kind: "syntax", Offset: 25}},
		{"type not a string", `{"type":ADDED,"object":{}}`, 0, errInfo{Kind: "syntax", Offset: 8}},
		{"missing colon", `{"type" "ADDED","object":{}}`, 0, errInfo{Kind: "syntax", Offset: 8}},
		{"missing comma", `{"type":"ADDED" "object":{}}`, 0, errInfo{Kind: "syntax", Offset: 16}},
		{"bad member value", `{"type":"ADDED","x":tru,"object":{}}`, 0, errInfo{Kind: "syntax", Offset: 20}},
		{"malformed object", a1 + `{"type":"ADDED","object":{"metadata":{"name":1}}}`, 1, errInfo{Kind: "syntax", Offset: n + 45}},
		{"bad escape in object", `{"type":"ADDED","object":{"metadata":{"name":"\q"}}}`, 0, errInfo{Kind: "syntax", Offset: 47}},
		{"bracket closed by brace", `{"type":"ADDED","object":{"a":[}]}`, 0, errInfo{Kind: "syntax", Offset: 31}},
		{"ERROR without a Status", `{"type":"ERROR","object":{"kind":"Pod"}}`, 0, errInfo{Kind: "object", Offset: 25}},
		{"truncated in object", a1 + `{"type":"ADDED","object":{"metadata":{`, 1, errInfo{Kind: "unexpected-eof"}},
		{"truncated in string", `{"type":"ADD`, 0, errInfo{Kind: "unexpected-eof"}},
		{"truncated after escape", `{"type":"ADDED","object":{"a":"\`, 0, errInfo{Kind: "unexpected-eof"}},
		{"truncated after an open brace", "\n{", 0, errInfo{Kind: "unexpected-eof"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tc.input)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tc.input))},
			} {
				evs, err := decodeAll(split.r, DecoderOptions{})
				if len(evs) != tc.events {
					t.Errorf("%s: got %d events before the error, want %d", split.name, len(evs), tc.events)
				}
				if diff := cmp.Diff(tc.want, classify(err)); diff != "" {
					t.Errorf("%s: error %v (-want +got):\n%s", split.name, err, diff)
				}
			}
		})
	}
}

func TestDecodeErrorIsSticky(t *testing.T) {
	d := NewDecoder(strings.NewReader(`[`+event(Added, obj("a", "1"))), jsonCodec(decodeTestObj), DecoderOptions{})
	_, first := d.Decode()
	_, again := d.Decode()
	if first == nil || again != first {
		t.Fatalf("got errors %v then %v, want the same error twice", first, again)
	}
}

func TestDecodeErrorEvent(t *testing.T) {
	evs := event(Error, goneStatus) + "\n"
	d := NewDecoder(strings.NewReader(evs), testCodec, DecoderOptions{})
	ev, err := d.Decode()
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if ev.Type != Error {
		t.Fatalf("got type %s, want ERROR", ev.Type)
	}
	se, ok := ev.Err.(*rest.StatusError)
	if !ok {
		t.Fatalf("got Err %T (%v), want *rest.StatusError", ev.Err, ev.Err)
	}
	if se.Status.Code != 410 || se.Status.Reason != "Expired" {
		t.Errorf("got code %d reason %q, want 410 Expired", se.Status.Code, se.Status.Reason)
	}
	if !rest.IsGone(ev.Err) {
		t.Errorf("rest.IsGone(%v) = false, want true", ev.Err)
	}
	if _, err := d.Decode(); err != io.EOF {
		t.Errorf("after the ERROR event: got %v, want io.EOF", err)
	}
}

var errBoom = errors.New("boom")

func TestDecodeReadErrors(t *testing.T) {
	a1 := event(Added, obj("a", "1")) + "\n"
	for _, tc := range []struct {
		name   string
		r      io.Reader
		events int
		want   error
	}{
		{"between events", &chunkReader{chunks: []string{a1}, err: errBoom}, 1, errBoom},
		{"inside an event", &chunkReader{chunks: []string{a1[:10]}, err: errBoom}, 0, errBoom},
		{"with the data of the last read", iotest.DataErrReader(io.MultiReader(strings.NewReader(a1), iotest.ErrReader(errBoom))), 1, errBoom},
		{"no progress", emptyReader{}, 0, io.ErrNoProgress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := decodeAll(tc.r, DecoderOptions{})
			if len(evs) != tc.events {
				t.Errorf("got %d events, want %d", len(evs), tc.events)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("got error %v, want one wrapping %v", err, tc.want)
			}
		})
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func TestDecodeKeepRaw(t *testing.T) {
	evs := []string{
		event(Added, obj("a", "1")),
		`{ "object" : ` + obj("b", "2") + ` , "type" : "MODIFIED" }`,
		event(Error, goneStatus),
	}
	input := "\n" + evs[0] + "\n" + evs[1] + "\r\n \n" + evs[2]
	d := NewDecoder(iotest.HalfReader(strings.NewReader(input)), testCodec, DecoderOptions{KeepRaw: true})
	var raws [][]byte
	for {
		ev, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if got := input[ev.Offset : ev.Offset+int64(len(ev.Raw))]; got != string(ev.Raw) {
			t.Errorf("Raw %q is not the input at its offset %d, %q", ev.Raw, ev.Offset, got)
		}
		raws = append(raws, ev.Raw)
	}
	// Compared only now: Raw must survive the buffer's reuse by later events.
	var got []string
	for _, r := range raws {
		got = append(got, string(r))
	}
	if diff := cmp.Diff(evs, got); diff != "" {
		t.Errorf("Raw (-want +got):\n%s", diff)
	}
	d = NewDecoder(strings.NewReader(evs[0]), testCodec, DecoderOptions{})
	if ev, err := d.Decode(); err != nil || ev.Raw != nil {
		t.Errorf("without KeepRaw: got Raw %q, error %v; want nil, nil", ev.Raw, err)
	}
}

func TestDecodeFrameSizeLimit(t *testing.T) {
	small := event(Added, obj("a", "1"))
	big := event(Added, `{"metadata":{"name":"`+strings.Repeat("x", 5000)+`"}}`)
	for _, tc := range []struct {
		name   string
		input  string
		limit  int
		events int
		want   errInfo
	}{
		{"frame at the limit", small + "\n" + small, len(small), 2, errInfo{Kind: "eof"}},
		{"frame one over", small + "\n" + small + "x", len(small) - 1, 0, errInfo{Kind: "too-large"}},
		{"big frame after a small one", small + "\n" + big, 1024, 1, errInfo{Kind: "too-large", Offset: int64(len(small) + 1)}},
		{"limit below a read", small + big, 100, 1, errInfo{Kind: "too-large", Offset: int64(len(small))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := decodeAll(strings.NewReader(tc.input), DecoderOptions{MaxFrameSize: tc.limit})
			if len(evs) != tc.events {
				t.Errorf("got %d events, want %d", len(evs), tc.events)
			}
			if diff := cmp.Diff(tc.want, classify(err)); diff != "" {
				t.Errorf("error %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// endlessReader produces a prefix and then fill forever: an event that never ends.
type endlessReader struct {
	prefix string
	fill   byte
	n      int64 // bytes produced
}

func (r *endlessReader) Read(p []byte) (int, error) {
	n := copy(p, r.prefix)
	r.prefix = r.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = r.fill
	}
	r.n += int64(len(p))
	return len(p), nil
}

func TestDecodeEndlessFrame(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		name string
		r    *endlessReader
	}{
		{"endless string", &endlessReader{prefix: `{"type":"ADDED","object":{"a":"`, fill: 'x'}},
		{"endless nesting inside the depth bound", &endlessReader{prefix: "{" + strings.Repeat("[", 9000), fill: ' '}},
		{"endless escapes", &endlessReader{prefix: `{"a":"`, fill: '\\'}},
		{"endless spaces", &endlessReader{prefix: `{`, fill: ' '}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(tc.r, testCodec, DecoderOptions{MaxFrameSize: limit})
			_, err := d.Decode()
			var fe *FrameTooLargeError
			if !errors.As(err, &fe) {
				t.Fatalf("got error %v, want *FrameTooLargeError", err)
			}
			if fe.Limit != limit || fe.Offset != 0 {
				t.Errorf("got limit %d offset %d, want %d and 0", fe.Limit, fe.Offset, limit)
			}
			if d.in.Size() > limit {
				t.Errorf("buffer grew to %d bytes, over the %d limit", d.in.Size(), limit)
			}
			if tc.r.n > limit {
				t.Errorf("read %d bytes, more than the %d limit", tc.r.n, limit)
			}
		})
	}
}

// Nesting past the depth bound ends the stream with a syntax error where the
// bound was passed, long before the frame limit.
func TestDecodeEndlessNesting(t *testing.T) {
	r := &endlessReader{fill: '{'}
	d := NewDecoder(r, testCodec, DecoderOptions{MaxFrameSize: 1 << 20})
	_, err := d.Decode()
	if diff := cmp.Diff(errInfo{Kind: "syntax", Offset: 10000}, classify(err)); diff != "" {
		t.Errorf("error %v (-want +got):\n%s", err, diff)
	}
}

func TestDecodeBufferReused(t *testing.T) {
	stream := realPodStream(t, 50)
	d := NewDecoder(bytes.NewReader(stream), testCodec, DecoderOptions{})
	for {
		if _, err := d.Decode(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("Decode: %v", err)
		}
	}
	// 50 pods of 15 KB went through: one buffer of a few reads' size must do.
	if d.in.Size() > 128<<10 {
		t.Errorf("buffer grew to %d bytes for %d-byte events", d.in.Size(), len(stream)/50)
	}
}
