package stream

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// lengthFramer frames values of a one-byte length and that many bytes, a
// format of the test's own: the package frames with any Framer, and knows
// none of the codecs' (which import it).
type lengthFramer struct{}

func (lengthFramer) Space([]byte) int { return 0 }
func (lengthFramer) Reset()           {}
func (lengthFramer) Scan(v []byte, limit int) (int, error) {
	if len(v) == 0 {
		return -1, nil
	}
	if n := 1 + int(v[0]); n > limit {
		return -1, ErrTooLarge
	} else if n <= len(v) {
		return n, nil
	}
	return -1, nil
}

// readFrames reads length-prefixed frames with Next and a lengthFramer.
func readFrames(r *Reader) ([]string, error) {
	var frames []string
	for {
		frame, _, err := r.Next(lengthFramer{})
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(frame[1:]))
	}
}

func lengthPrefixed(bodies ...string) string {
	var b []byte
	for _, s := range bodies {
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// Next frames values cut anywhere by the reads, ends cleanly between them
// and not inside one, and refuses one longer than the limit.
func TestReaderLengthPrefixed(t *testing.T) {
	in := lengthPrefixed("a", "", strings.Repeat("b", 200), "c")
	frames, err := readFrames(NewReader(iotest.OneByteReader(strings.NewReader(in)), 1<<13))
	if err != io.EOF || len(frames) != 4 || frames[2] != strings.Repeat("b", 200) || frames[3] != "c" {
		t.Fatalf("got %d frames, %v; want 4, EOF", len(frames), err)
	}
	_, err = readFrames(NewReader(strings.NewReader(in[:len(in)-1]), 1<<13))
	if err != io.ErrUnexpectedEOF {
		t.Errorf("cut frame: got %v, want io.ErrUnexpectedEOF", err)
	}
	_, err = readFrames(NewReader(strings.NewReader(in), 100))
	if err != ErrTooLarge {
		t.Errorf("frame over the limit: got %v, want ErrTooLarge", err)
	}
}

// The buffer never grows past the limit, and offsets follow the bytes as it
// is compacted.
func TestReaderLimitAndOffsets(t *testing.T) {
	const limit = 10000
	in := strings.Repeat("0123456789", 3000)
	r := NewReader(strings.NewReader(in), limit)
	for taken := 0; ; {
		if got := r.Offset(); got != int64(taken) {
			t.Fatalf("Offset %d after taking %d bytes", got, taken)
		}
		if b := r.Buffered(); len(b) > 0 && b[0] != in[taken] {
			t.Fatalf("Buffered starts with %q at offset %d, want %q", b[0], taken, in[taken])
		}
		err := r.Fill()
		if err == io.EOF {
			break
		}
		if err == ErrTooLarge {
			taken += len(r.Take(len(r.Buffered()) / 2))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Size() > limit || len(r.Buffered()) > limit {
			t.Fatalf("buffer of %d bytes holding %d, over the limit %d", r.Size(), len(r.Buffered()), limit)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(iotest.DataErrReader(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom))), 100)
	if err := r.Fill(); err != nil || string(r.Buffered()) != "ab" {
		t.Fatalf("Fill with the data: %v, %q; want nil, ab", err, r.Buffered())
	}
	if err := r.Fill(); err != boom {
		t.Fatalf("next Fill: %v, want the read error", err)
	}
	if got := r.ReadOffset(); got != 2 {
		t.Errorf("ReadOffset %d, want 2", got)
	}
	if err := NewReader(emptyReader{}, 100).Fill(); err != io.ErrNoProgress {
		t.Errorf("empty reads: got %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }
