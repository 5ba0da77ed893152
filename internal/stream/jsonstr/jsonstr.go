// Package jsonstr finds the end of plain string content in JSON, a word at a
// time. It is the one string scanner of podwatch: the stream framer and the
// jsonx reader both use it to read strings, and jsonx's escaper to write them
// (EscapeStops), so a fix to it lands once.
package jsonstr

import (
	"encoding/binary"
	"math/bits"
)

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// PlainEnd returns the index of the first byte at or after i that is not plain
// string content (a '"', a '\\' or a control byte below 0x20), or len(b) when
// there is none. It looks at eight bytes a step: most strings in an object are
// short keys and values, too short for bytes.IndexByte's call and setup to pay
// off, and a byte loop branches on every byte.
func PlainEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := Stops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

// Stops flags the bytes of w, eight bytes read little-endian, that end plain
// string content: '"', '\\' or a control byte below 0x20. The lowest flagged
// byte is exact, bytes above it may be false hits: a scanner takes
// bits.TrailingZeros64(Stops(w))>>3 as the offset of the first stop and reads
// on from there. It is small enough to be inlined into a caller's own loop.
func Stops(w uint64) uint64 {
	// x^0x02 keeps the control bytes below 0x20 and moves '"' (0x22) to
	// 0x20, so one test finds both: a byte of x below 0x21 borrows in
	// x-0x21. A byte of s is zero where w holds a backslash.
	x, s := w^(ones*0x02), w^(ones*'\\')
	return ((x-ones*0x21)&^x | (s-ones)&^s) & highs
}

// EscapeStops flags the bytes of w, eight bytes read little-endian, that
// encoding/json does not copy into a JSON string as they are: what Stops
// flags, '<', '>' and '&' (escaped so that the JSON is safe inside HTML), and
// every byte from 0x80 (part of a multi-byte rune, which a writer decodes:
// U+2028, U+2029 and invalid UTF-8 are escaped too). As with Stops, the lowest
// flagged byte is exact, and it is small enough to be inlined into a writer's
// loop.
func EscapeStops(w uint64) uint64 {
	// '<' (0x3c) and '>' (0x3e) differ only in bit 1: setting it makes both
	// 0x3e, and nothing else. A byte of a or g is zero where w holds '&',
	// '<' or '>'; a byte with its high bit set is flagged as it is.
	a, g := w^(ones*'&'), (w|ones*0x02)^(ones*'>')
	return Stops(w) | ((a-ones)&^a|(g-ones)&^g|w)&highs
}
