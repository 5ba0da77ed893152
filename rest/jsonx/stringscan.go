package jsonx

import (
	"encoding/binary"
	"math/bits"

	"github.com/podwatch/podwatch/internal/stream/jsonstr"
)

// stringEnd returns the index after the closing quote of the well-formed
// string whose content starts at i, and whether the content is plain ASCII
// (no escape, no byte above 0x7f: its own text, with no UTF-8 to check);
// ok is false when the string is malformed or cut short. It scans eight
// bytes a step to the next '"', '\\' or control byte: the one string scan
// of the reader, which skipFast and stringBody share.
func stringEnd(data []byte, i int) (end int, plain, ok bool) {
	escaped := false
	var high uint64 // the bytes passed, ORed: bit 7 set if one was above 0x7f
	for {
		if i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			m := jsonstr.Stops(w)
			if m == 0 {
				high |= w
				i += 8
				continue
			}
			n := bits.TrailingZeros64(m) >> 3
			high |= w & (1<<(n*8) - 1)
			i += n
		} else {
			for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20 {
				high |= uint64(data[i])
				i++
			}
			if i >= len(data) {
				return 0, false, false
			}
		}
		if c := data[i]; c == '"' {
			return i + 1, !escaped && high&highBits == 0, true
		} else if c < 0x20 {
			return 0, false, false
		}
		n := escapeLen(data[i+1:])
		if n == 0 {
			return 0, false, false
		}
		escaped = true
		i += 1 + n
	}
}

// highBits are the top bits of a word's eight bytes.
const highBits = 0x8080808080808080

// escapeLen is the length of the well-formed escape that b starts with
// (after its backslash), or 0.
func escapeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) >= 5 && isHex4(b[1:5]) {
			return 5
		}
	}
	return 0
}
