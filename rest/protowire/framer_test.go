package protowire

import (
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/stream"
)

func lengthPrefixed(bodies ...string) string {
	var b []byte
	for _, s := range bodies {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// A 4 GiB length is refused from its prefix: nothing of the body is read and
// the buffer does not grow for it.
func TestNextFrameRefusesAHugeLength(t *testing.T) {
	in := lengthPrefixed("ok") + string(binary.BigEndian.AppendUint32(nil, 0xffffffff)) + strings.Repeat("x", 1000)
	r := stream.NewReader(strings.NewReader(in), 1<<20)
	var f Framer
	if frame, off, err := r.Next(&f); err != nil || string(frame[FrameHeader:]) != "ok" || off != 0 {
		t.Fatalf("first frame: got %q at %d, %v; want \"ok\" at 0", frame, off, err)
	}
	_, off, err := r.Next(&f)
	if err != stream.ErrTooLarge || off != 6 || f.Length() != 0xffffffff {
		t.Fatalf("got offset %d, length %d, %v; want ErrTooLarge at 6 with the length", off, f.Length(), err)
	}
	if r.Size() > 32<<10 { // the Reader's first buffer
		t.Errorf("buffer grew to %d bytes for a frame it refused", r.Size())
	}
}

func TestNextFrameEnds(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want error
	}{
		{"between frames", lengthPrefixed("a"), io.EOF},
		{"inside the length", lengthPrefixed("a") + "\x00\x00", io.ErrUnexpectedEOF},
		{"inside the body", lengthPrefixed("a") + lengthPrefixed("abc")[:5], io.ErrUnexpectedEOF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := stream.NewReader(strings.NewReader(tt.in), 1<<10)
			var f Framer
			if _, _, err := r.Next(&f); err != nil {
				t.Fatalf("first frame: %v", err)
			}
			if _, _, err := r.Next(&f); err != tt.want {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// The Framer, fed a frame one more byte at a time as the trace feeds it,
// knows the length once the prefix is in and the end once the body is.
func TestFrameEndGrows(t *testing.T) {
	frame := lengthPrefixed("abc")
	for n := 0; n <= len(frame); n++ {
		var f Framer
		end, err := f.Scan([]byte(frame[:n]), 1<<10)
		wantEnd, wantLength := -1, uint32(0)
		if n >= FrameHeader {
			wantLength = 3
		}
		if n == len(frame) {
			wantEnd = len(frame)
		}
		if err != nil || end != wantEnd || f.Length() != wantLength {
			t.Fatalf("%d bytes: got end %d, length %d, %v; want %d, %d", n, end, f.Length(), err, wantEnd, wantLength)
		}
	}
	var f Framer
	if _, err := f.Scan(binary.BigEndian.AppendUint32(nil, 0xffffffff), 1<<10); err != stream.ErrTooLarge || f.Length() != 0xffffffff {
		t.Fatalf("a 4 GiB prefix: got length %d, %v; want ErrTooLarge with the length", f.Length(), err)
	}
}
