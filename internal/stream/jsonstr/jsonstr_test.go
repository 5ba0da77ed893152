package jsonstr

import (
	"encoding/binary"
	"math/bits"
	"math/rand"
	"testing"
)

func naivePlainEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// TestPlainEnd puts stop bytes at every position of a word, among bytes that
// are near them in value (0x1f and 0x20, 0x21 and 0x5b beside '"' and '\\',
// high bytes whose low bits match), and checks every start.
func TestPlainEnd(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab\"\\{}\x00\x1f\x20\x7f\x80\xa2\xdc\xff\x01\x21\x5b\x5d")
	for n := range 3000 {
		b := make([]byte, n%40)
		for i := range b {
			if rng.Intn(6) == 0 {
				b[i] = alphabet[rng.Intn(len(alphabet))]
			} else {
				b[i] = byte(rng.Intn(256))
			}
		}
		for from := 0; from <= len(b); from++ {
			if got, want := PlainEnd(b, from), naivePlainEnd(b, from); got != want {
				t.Fatalf("PlainEnd(%q, %d) = %d, want %d", b, from, got, want)
			}
		}
	}
}

func FuzzPlainEnd(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijkl\mnop`), 0)
	f.Add([]byte("0123456789abcdef\x1f"), 3)
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		if from < 0 || from > len(b) {
			return
		}
		if got, want := PlainEnd(b, from), naivePlainEnd(b, from); got != want {
			t.Fatalf("PlainEnd(%q, %d) = %d, want %d", b, from, got, want)
		}
	})
}

func naiveEscapeEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return i
		}
	}
	return i
}

// escapeEnd finds the first stop as a writer's loop does, with EscapeStops
// on each whole word and a byte at a time on the rest.
func escapeEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := EscapeStops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return naiveEscapeEnd(b, i)
}

// TestEscapeStops does for EscapeStops what TestPlainEnd does for Stops,
// with the bytes next to '<', '>' and '&' in value (';', '=', '?', '%' and
// the apostrophe) and the edge of the high bytes (0x7f, 0x80).
func TestEscapeStops(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte("ab\"\\<>&;=?%'\x00\x1f\x20\x7f\x80\xa2\xbe\xbc\xff\x01\x21\x5b")
	for n := range 3000 {
		b := make([]byte, n%40)
		for i := range b {
			if rng.Intn(3) == 0 {
				b[i] = byte(rng.Intn(256))
			} else {
				b[i] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		for from := 0; from <= len(b); from++ {
			if got, want := escapeEnd(b, from), naiveEscapeEnd(b, from); got != want {
				t.Fatalf("first stop of %q from %d: %d, want %d", b, from, got, want)
			}
		}
	}
}

func FuzzEscapeStops(f *testing.F) {
	f.Add([]byte(`abcdefgh<ijkl&mnop>`), 0)
	f.Add([]byte("0123456789abcdef\x7f\x80"), 3)
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		if from < 0 || from > len(b) {
			return
		}
		if got, want := escapeEnd(b, from), naiveEscapeEnd(b, from); got != want {
			t.Fatalf("first stop of %q from %d: %d, want %d", b, from, got, want)
		}
	})
}
