package watch

import (
	"encoding/binary"
	"math/bits"
)

// scanState is where a frame scan stopped for want of bytes, so that the next
// read's bytes are scanned once, not the whole frame again.
type scanState struct {
	pos   int // next byte to look at, an index into the buffer
	depth int // braces open outside strings
	inStr bool
	// open2 and close2 are the indexes of the last '{' opening, and of the last
	// '}' closing, an object directly inside the frame's: in the usual envelope
	// that is the event's object, which then need not be scanned again.
	open2, close2 int
}

// shift moves the state's indexes by n, after the buffer's bytes moved as much
// towards its front.
func (st *scanState) shift(n int) {
	st.pos -= n
	st.open2 -= n
	st.close2 -= n
}

// scanFrame continues the scan of an object from st.pos. It returns the index just
// past the object's closing brace, or -1 when buf ends first (st then says where
// to resume).
//
// It tracks only what finding the end needs: strings (so braces inside them do
// not count) and braces. Brackets, commas and everything else are left to the
// envelope parser and the DecodeFunc, which read the frame fully anyway.
func scanFrame(buf []byte, st *scanState) int {
	i, depth := st.pos, st.depth
	if st.inStr {
		var ok bool
		if i, ok = stringEnd(buf, i); !ok {
			st.pos = i
			return -1
		}
		st.inStr = false
	}
	for ; i < len(buf); i++ {
		switch buf[i] {
		case '"':
			// Strings are most of an object's bytes: jump through them.
			end, ok := stringEnd(buf, i+1)
			if !ok {
				st.pos, st.depth, st.inStr = end, depth, true
				return -1
			}
			i = end - 1 // the loop steps past the closing quote
		case '{':
			depth++
			if depth == 2 {
				st.open2 = i
			}
		case '}':
			depth--
			switch depth {
			case 0:
				return i + 1
			case 1:
				st.close2 = i
			}
		}
	}
	st.pos, st.depth = len(buf), depth
	return -1
}

// stringEnd scans a string's body from buf[i]. It returns the index just past the
// closing quote and true, or, when buf ends first, where to resume and false. A
// backslash at the very end is left to be scanned again with what follows it.
func stringEnd(buf []byte, i int) (int, bool) {
	for {
		i = quoteOrBackslash(buf, i)
		switch {
		case i >= len(buf):
			return len(buf), false
		case buf[i] == '"':
			return i + 1, true
		case i+1 >= len(buf):
			return i, false
		}
		i += 2 // a backslash and the byte it escapes
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteOrBackslash returns the index of the first '"' or '\\' in buf[i:], or
// len(buf). It looks at eight bytes a step: most strings in an object are short
// keys and values, too short for bytes.IndexByte's call and setup to pay off.
func quoteOrBackslash(buf []byte, i int) int {
	for ; i+8 <= len(buf); i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		q, b := w^(ones*'"'), w^(ones*'\\')
		// A byte of q or b is zero where w holds the byte sought; the lowest
		// flagged byte is exact (only bytes after it can be false hits).
		if m := ((q - ones) &^ q) | ((b - ones) &^ b); m&highs != 0 {
			return i + bits.TrailingZeros64(m&highs)>>3
		}
	}
	for ; i < len(buf); i++ {
		if c := buf[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// objectEnd returns the index just past the object whose '{' is buf[start], or -1
// if buf ends first.
func objectEnd(buf []byte, start int) int {
	st := scanState{pos: start}
	return scanFrame(buf, &st)
}
