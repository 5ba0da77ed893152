package cborwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/fxamacker/cbor/v2"

	"github.com/podwatch/podwatch/internal/stream"
)

func recordedCBORWatch(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/watch.cborseq")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The recorded watch splits into the items fxamacker's decoder finds, read
// one byte at a time or all at once.
func TestNextCBORSplitsTheRecordedWatch(t *testing.T) {
	in := recordedCBORWatch(t)
	var want [][]byte
	for rest := in; len(rest) > 0; {
		var raw cbor.RawMessage
		next, err := cbor.UnmarshalFirst(rest, &raw)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rest[:len(rest)-len(next)])
		rest = next
	}
	for name, r := range map[string]io.Reader{"whole": bytes.NewReader(in), "byte by byte": iotest.OneByteReader(bytes.NewReader(in))} {
		t.Run(name, func(t *testing.T) {
			sr := stream.NewReader(r, 1<<20)
			var f Framer
			var off int64
			for i := range want {
				item, at, err := sr.Next(&f)
				if err != nil || !bytes.Equal(item, want[i]) || at != off {
					t.Fatalf("item %d: got %d bytes at %d, %v; want %d bytes at %d", i, len(item), at, err, len(want[i]), off)
				}
				off += int64(len(item))
			}
			if _, _, err := sr.Next(&f); err != io.EOF {
				t.Fatalf("after the last item: %v, want io.EOF", err)
			}
		})
	}
}

// stopReader hands out its data and then fails the test's read: Next
// must return an item without reading past it.
type stopReader struct {
	data []byte
	t    *testing.T
}

func (s *stopReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		s.t.Fatal("read past the item: the framer waited for the next one")
	}
	n := copy(p, s.data)
	s.data = s.data[n:]
	return n, nil
}

func TestNextCBORDoesNotWaitForTheNextItem(t *testing.T) {
	in := recordedCBORWatch(t)
	var raw cbor.RawMessage
	rest, err := cbor.UnmarshalFirst(in, &raw)
	if err != nil {
		t.Fatal(err)
	}
	first := in[:len(in)-len(rest)]
	r := stream.NewReader(&stopReader{data: first, t: t}, 1<<20)
	var f Framer
	if item, _, err := r.Next(&f); err != nil || len(item) != len(first) {
		t.Fatalf("got %d bytes, %v; want the %d-byte item", len(item), err, len(first))
	}
}

func TestNextCBORErrors(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       string
		limit    int
		want     error
		syntaxAt int64
	}{
		{"ends inside an item", "\x01\x82\x01", 100, io.ErrUnexpectedEOF, 0},
		{"ends inside a header", "\x01\x19\x01", 100, io.ErrUnexpectedEOF, 0},
		{"a 4 GiB string", "\x01\x5a\xff\xff\xff\xff" + strings.Repeat("x", 50), 1 << 10, stream.ErrTooLarge, 0},
		{"an 2^64 item array", "\x01\x9b\xff\xff\xff\xff\xff\xff\xff\xff", 1 << 10, stream.ErrTooLarge, 0},
		{"nested past the bound", "\x01" + strings.Repeat("\x81", 20) + "\x01", 100, nil, 1 + 5},
		{"indefinite length", "\x01\xa1\x41a\x9f\xff", 100, nil, 4},
		{"reserved", "\x01\x1c", 100, nil, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := stream.NewReader(strings.NewReader(tt.in), tt.limit)
			f := Framer{MaxDepth: 5}
			if _, _, err := r.Next(&f); err != nil {
				t.Fatalf("first item: %v", err)
			}
			_, _, err := r.Next(&f)
			if tt.want != nil {
				if err != tt.want {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
				if tt.want == stream.ErrTooLarge && r.Size() > 32<<10 /* the Reader's first buffer */ {
					t.Errorf("buffer grew to %d for an item it refused", r.Size())
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset != tt.syntaxAt {
				t.Fatalf("got %v, want a *SyntaxError at %d", err, tt.syntaxAt)
			}
		})
	}
}

type cborFramed struct {
	Items [][]byte
	Err   string
}

func frameAllCBOR(r io.Reader, limit int) cborFramed {
	sr := stream.NewReader(r, limit)
	f := Framer{MaxDepth: 50}
	var out cborFramed
	var off int64
	for {
		item, at, err := sr.Next(&f)
		if err != nil {
			out.Err = err.Error()
			return out
		}
		if at != off {
			out.Err = fmt.Sprintf("item at %d, want %d", at, off)
			return out
		}
		off += int64(len(item))
		out.Items = append(out.Items, bytes.Clone(item))
	}
}

// FuzzNextCBOR: items are consecutive, within the limit, and cborFramed the
// same whether the stream comes at once or a byte at a time.
func FuzzNextCBOR(f *testing.F) {
	f.Add(recordedCBORWatch(f)[:2000])
	for _, seed := range []string{"\x01\x82\x01\x02", "\xd9\xd9\xf7\xa1\x41a\x5a\xff\xff\xff\xff", "\x9f\xff", "\x1c"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 12
		whole := frameAllCBOR(bytes.NewReader(data), limit)
		for i, item := range whole.Items {
			if len(item) == 0 || len(item) > limit {
				t.Fatalf("item %d of %d bytes", i, len(item))
			}
		}
		bytewise := frameAllCBOR(iotest.OneByteReader(bytes.NewReader(data)), limit)
		if !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("one byte per read frames differently: %+v against %+v", bytewise, whole)
		}
	})
}
