package watch

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestQuoteOrBackslash(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`ab"\{}` + "\x00\x7f\x80\xff\x01\x21\x5b\x5d")
	for n := range 2000 {
		buf := make([]byte, n%40)
		for i := range buf {
			// Mostly plain bytes, so hits fall at every position of a word.
			if rng.Intn(6) == 0 {
				buf[i] = alphabet[rng.Intn(len(alphabet))]
			} else {
				buf[i] = byte(rng.Intn(256))
			}
		}
		for from := 0; from <= len(buf); from++ {
			want := len(buf)
			if j := bytes.IndexAny(buf[from:], `"\`); j >= 0 {
				want = from + j
			}
			if got := quoteOrBackslash(buf, from); got != want {
				t.Fatalf("quoteOrBackslash(%q, %d) = %d, want %d", buf, from, got, want)
			}
		}
	}
}

func TestScanFrameResumes(t *testing.T) {
	for _, frame := range []string{
		`{}`,
		`{"a":"}"}`,
		`{"a":"\"}\\","b":{"c":"\\\"{"}}`,
		`{"object":{"x":{"y":"}}}"}},"type":"ADDED"}`,
		`{"a":"` + string(bytes.Repeat([]byte(`\\\"`), 40)) + `"}`,
	} {
		in := frame + `{"next":1}`
		// Feed the scan one more byte at a time: it must find the same end,
		// never before the frame's last byte.
		st := scanState{open2: -1, close2: -1}
		got := -1
		for n := 1; n <= len(in) && got < 0; n++ {
			got = scanFrame([]byte(in[:n]), &st)
			if got >= 0 && n != len(frame) {
				t.Errorf("%s: found the end with %d bytes, want %d", frame, n, len(frame))
			}
		}
		if got != len(frame) {
			t.Errorf("%s: got end %d, want %d", frame, got, len(frame))
		}
		st = scanState{open2: -1, close2: -1}
		if got := scanFrame([]byte(in), &st); got != len(frame) {
			t.Errorf("%s in one piece: got end %d, want %d", frame, got, len(frame))
		}
	}
}
