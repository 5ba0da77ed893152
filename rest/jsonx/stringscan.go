package jsonx

import (
	"encoding/binary"
	"math/bits"

	"github.com/podwatch/podwatch/internal/stream/jsonstr"
)

// stringEnd returns the index after the closing quote of the well-formed
// string whose content starts at i, and whether the content holds escapes;
// false when the string is malformed or cut short. It scans eight bytes a
// step to the next '"', '\\' or control byte: the one string scan of the
// reader, which skipFast and stringBody share.
func stringEnd(data []byte, i int) (end int, escaped, ok bool) {
	for {
		if i+8 <= len(data) {
			m := jsonstr.Stops(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20 {
				i++
			}
			if i >= len(data) {
				return 0, false, false
			}
		}
		if c := data[i]; c == '"' {
			return i + 1, escaped, true
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
