package stream

import (
	"encoding/binary"
	"io"
	"strings"
	"testing"
)

// A 4 GiB length is refused from its prefix: nothing of the body is read and
// the buffer does not grow for it.
func TestNextFrameRefusesAHugeLength(t *testing.T) {
	in := lengthPrefixed("ok") + string(binary.BigEndian.AppendUint32(nil, 0xffffffff)) + strings.Repeat("x", 1000)
	r := NewReader(strings.NewReader(in), 1<<20)
	if body, off, _, err := r.NextFrame(); err != nil || string(body) != "ok" || off != 0 {
		t.Fatalf("first frame: got %q at %d, %v; want \"ok\" at 0", body, off, err)
	}
	_, off, length, err := r.NextFrame()
	if err != ErrTooLarge || off != 6 || length != 0xffffffff {
		t.Fatalf("got offset %d, length %d, %v; want ErrTooLarge at 6 with the length", off, length, err)
	}
	if r.Size() > initialSize {
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
			r := NewReader(strings.NewReader(tt.in), 1<<10)
			if _, _, _, err := r.NextFrame(); err != nil {
				t.Fatalf("first frame: %v", err)
			}
			if _, _, _, err := r.NextFrame(); err != tt.want {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// FrameEnd, fed a frame one more byte at a time as the trace feeds it,
// knows the length once the prefix is in and the end once the body is.
func TestFrameEndGrows(t *testing.T) {
	frame := lengthPrefixed("abc")
	for n := 0; n <= len(frame); n++ {
		end, length, err := FrameEnd([]byte(frame[:n]), 1<<10)
		wantEnd, wantLength := -1, uint32(0)
		if n >= FrameHeader {
			wantLength = 3
		}
		if n == len(frame) {
			wantEnd = len(frame)
		}
		if err != nil || end != wantEnd || length != wantLength {
			t.Fatalf("%d bytes: got end %d, length %d, %v; want %d, %d", n, end, length, err, wantEnd, wantLength)
		}
	}
	if _, length, err := FrameEnd(binary.BigEndian.AppendUint32(nil, 0xffffffff), 1<<10); err != ErrTooLarge || length != 0xffffffff {
		t.Fatalf("a 4 GiB prefix: got length %d, %v; want ErrTooLarge with the length", length, err)
	}
}
