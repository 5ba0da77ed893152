package jsonstr

import (
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
