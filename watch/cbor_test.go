package watch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/wire"
)

func cborEvent(t testing.TB, typ EventType, object string) []byte {
	t.Helper()
	b, err := cborenc.EncodeEvent(string(typ), []byte(object))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func recordedCBORWatch(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../rest/cborwire/testdata/watch.cborseq")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The real apiserver's CBOR watch decodes, read a byte at a time, into the
// events it sent; KeepRaw gives each as JSON.
func TestCBORRecordedWatch(t *testing.T) {
	d := NewDecoder(iotest.OneByteReader(bytes.NewReader(recordedCBORWatch(t))), testCodec, DecoderOptions{Format: wire.CBOR, KeepRaw: true})
	var types []EventType
	for {
		ev, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("event %d: %v", len(types), err)
		}
		if !json.Valid(ev.Raw) {
			t.Fatalf("event %d: Raw is not JSON: %s", len(types), ev.Raw)
		}
		types = append(types, ev.Type)
		if ev.Type != Bookmark && ev.Object.Name == "" {
			t.Errorf("event %d (%s): no name", len(types), ev.Type)
		}
	}
	want := []EventType{Added, Bookmark, Added, Modified, Modified, Deleted, Bookmark}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("event types (-want +got):\n%s", d)
	}
}

func TestCBOREventsAndError(t *testing.T) {
	in := append(cborEvent(t, Added, obj("a", "5")), cborEvent(t, Error, goneStatus)...)
	d := NewDecoder(bytes.NewReader(in), testCodec, DecoderOptions{Format: wire.CBOR})
	ev, err := d.Decode()
	if err != nil || ev.Type != Added || ev.Object.Name != "a" || ev.Object.ResourceVersion != "5" {
		t.Fatalf("got %+v, %v; want ADDED a at 5", ev, err)
	}
	ev, err = d.Decode()
	if err != nil || ev.Type != Error || !rest.IsGone(ev.Err) {
		t.Fatalf("got %+v, %v; want an ERROR event with a 410", ev, err)
	}
	if _, err := d.Decode(); err != io.EOF {
		t.Fatalf("got %v, want io.EOF", err)
	}
}

func TestCBORErrors(t *testing.T) {
	first := cborEvent(t, Added, obj("a", "5"))
	at := int64(len(first))
	for _, tt := range []struct {
		name  string
		tail  []byte
		limit int
		check func(error) bool
	}{
		{"truncated", cborEvent(t, Added, obj("b", "6"))[:40], 0, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"too large", cborEvent(t, Added, obj(strings.Repeat("b", 1000), "6")), 400, func(err error) bool {
			var fe *FrameTooLargeError
			return errors.As(err, &fe) && fe.Offset == at
		}},
		{"not a map", []byte{0x01}, 0, func(err error) bool {
			var se *cborwire.SyntaxError
			return errors.As(err, &se) && se.Offset == at
		}},
		{"unknown tag", []byte{0xc1, 0x01}, 0, func(err error) bool {
			var se *cborwire.SyntaxError
			return errors.As(err, &se) && se.Offset == at
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(bytes.NewReader(append(bytes.Clone(first), tt.tail...)), jsonCodec(decodeTestObj), DecoderOptions{Format: wire.CBOR, MaxFrameSize: tt.limit})
			if _, err := d.Decode(); err != nil {
				t.Fatalf("first event: %v", err)
			}
			if _, err := d.Decode(); !tt.check(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
		})
	}
}

// Decoding one CBOR event never waits for a byte of the next.
func TestCBORNeverWaitsForTheNextItem(t *testing.T) {
	ev := cborEvent(t, Added, obj("a", "5"))
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() { pw.Write(ev) }() // and then nothing: a Read past it blocks forever
	d := NewDecoder(pr, testCodec, DecoderOptions{Format: wire.CBOR})
	done := make(chan error, 1)
	go func() { _, err := d.Decode(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testWait):
		t.Fatal("Decode waited for bytes after the event")
	}
}

// fuzzDecodeCBOR decodes a CBOR stream to the first error.
func fuzzDecodeCBOR(r io.Reader) ([]fuzzEvent, error) {
	d := NewDecoder(r, testCodec, DecoderOptions{MaxFrameSize: 64 << 10, KeepRaw: true, Format: wire.CBOR})
	var evs []fuzzEvent
	for {
		ev, err := d.Decode()
		if err != nil {
			return evs, err
		}
		evs = append(evs, fuzzEvent{ev.Type, ev.Offset, string(ev.Raw)})
	}
}

func FuzzCBORDecoder(f *testing.F) {
	real := recordedCBORWatch(f)
	added := cborEvent(f, Added, obj("a", "5"))
	for _, seed := range [][]byte{
		real, real[:len(real)/2], added,
		append(bytes.Clone(added), cborEvent(f, Error, goneStatus)...),
		cborEvent(f, "RESIZED", "{}"), {0x01}, {0xc1, 0x01}, {},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := fuzzDecodeCBOR(bytes.NewReader(data))
		info := classify(err)
		switch info.Kind {
		case "eof", "unexpected-eof", "cbor-syntax", "too-large", "unknown-type", "object":
		default:
			t.Fatalf("got error %v (%s), want a typed decoding error", err, info.Kind)
		}
		for i, ev := range evs {
			if !json.Valid([]byte(ev.Raw)) || ev.Offset < 0 || ev.Offset >= int64(len(data)) || i > 0 && ev.Offset <= evs[i-1].Offset {
				t.Fatalf("event %d at %d: Raw %q is not JSON or the offset is out of order", i, ev.Offset, ev.Raw)
			}
		}
		// Where reads end must not change what is decoded.
		evs1, err1 := fuzzDecodeCBOR(iotest.OneByteReader(bytes.NewReader(data)))
		if diff := cmp.Diff(evs, evs1); diff != "" {
			t.Fatalf("one byte per read decodes differently (-whole +bytewise):\n%s", diff)
		}
		if diff := cmp.Diff(info, classify(err1)); diff != "" {
			t.Fatalf("one byte per read fails differently (-whole +bytewise):\n%s", diff)
		}
	})
}
