package rest

import (
	"encoding/binary"
	"math/bits"
)

// frameState is how far a scan has got inside one string, object or array; it
// carries over from one buffer fill to the next.
type frameState struct {
	stack    []byte // the closers of the open objects and arrays
	depth    int    // most brackets that may be open
	inString bool
	escaped  bool // the next byte is escaped
	blocks   bool // the value is an object or array, not a string
}

// frameError is a bracket that does not fit, at an index of the scanned buffer.
type frameError struct {
	pos int
	msg string
}

func (e *frameError) Error() string { return e.msg }

// reset readies f for a value starting with first.
func (f *frameState) reset(depth int, first byte) {
	*f = frameState{stack: f.stack[:0], depth: depth, blocks: first != '"'}
}

// scan advances over buf from i. It returns the index just past the end of the
// value and done, or len(buf) when the value goes on past buf.
func (f *frameState) scan(buf []byte, i int) (int, bool, error) {
	// Blocks find strings and brackets 64 bytes at a time without a branch per
	// byte; pods switch between strings and structure every few bytes, which
	// defeats branch prediction in a byte loop. A lone string value (a member
	// name) is left to the byte loop, which ends it at its closing quote.
	for f.blocks && i+64 <= len(buf) {
		end, done, err := f.block(buf, i)
		if err != nil || done {
			return end, done, err
		}
		i += 64
	}
	return f.bytes(buf, i)
}

// block scans buf[i:i+64].
func (f *frameState) block(buf []byte, i int) (int, bool, error) {
	b := buf[i : i+64 : i+64]
	var quotes, backslashes, brackets uint64
	for j := 0; j < 64; j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		// '[' and ']' differ from '{' and '}' only in bit 5, which no other
		// byte shares with them.
		y := x | 0x20*lo
		quotes |= pack(zeroBytes(x^'"'*lo)) << j
		backslashes |= pack(zeroBytes(x^'\\'*lo)) << j
		brackets |= pack(zeroBytes(y^'{'*lo)|zeroBytes(y^'}'*lo)) << j
	}
	var escaped uint64
	if f.escaped {
		escaped = 1
	}
	f.escaped = false
	// Each backslash that is not itself escaped escapes the byte after it.
	for m := backslashes &^ escaped; m != 0; m &= m - 1 {
		bit := m & -m
		if escaped&bit != 0 {
			continue
		}
		if bit == 1<<63 {
			f.escaped = true
		}
		escaped |= bit << 1
	}
	quotes &^= escaped
	// A prefix XOR of the quotes marks the bytes inside strings.
	in := quotes
	in ^= in << 1
	in ^= in << 2
	in ^= in << 4
	in ^= in << 8
	in ^= in << 16
	in ^= in << 32
	if f.inString {
		in = ^in
	}
	f.inString = in>>63 != 0
	for m := brackets &^ in &^ escaped; m != 0; m &= m - 1 {
		p := i + bits.TrailingZeros64(m)
		end, done, err := f.bracket(buf[p], p)
		if err != nil || done {
			return end, done, err
		}
	}
	return i + 64, false, nil
}

// bracket opens or closes at buf[p] == c.
func (f *frameState) bracket(c byte, p int) (int, bool, error) {
	switch c {
	case '{', '[':
		if len(f.stack) >= f.depth {
			return p, false, &frameError{p, "nesting too deep"}
		}
		f.stack = append(f.stack, c+2) // '{'+2 is '}', '['+2 is ']'
		return p + 1, false, nil
	}
	if len(f.stack) == 0 || f.stack[len(f.stack)-1] != c {
		return p, false, &frameError{p, "unexpected '" + string(rune(c)) + "'"}
	}
	f.stack = f.stack[:len(f.stack)-1]
	return p + 1, len(f.stack) == 0, nil
}

// outside marks the bytes that matter outside strings, inside those within. A
// backslash is never valid outside a string, but block cannot tell where it is,
// so both loops let it escape the next byte and stay in step; the value's
// decoder rejects it.
var (
	outside = [256]bool{'"': true, '\\': true, '{': true, '}': true, '[': true, ']': true}
	inside  = [256]bool{'"': true, '\\': true}
)

// bytes scans byte by byte: the tail of a buffer, and lone strings.
func (f *frameState) bytes(buf []byte, i int) (int, bool, error) {
	for i < len(buf) {
		if f.escaped {
			i++
			f.escaped = false
			continue
		}
		if f.inString {
			i = skipString(buf, i)
			if i == len(buf) {
				break
			}
			i++
			if buf[i-1] == '\\' {
				f.escaped = true
				continue
			}
			f.inString = false
			if len(f.stack) == 0 {
				return i, true, nil
			}
			continue
		}
		for i < len(buf) && !outside[buf[i]] {
			i++
		}
		if i == len(buf) {
			break
		}
		switch buf[i] {
		case '"':
			f.inString = true
			i++
			continue
		case '\\':
			f.escaped = true
			i++
			continue
		}
		end, done, err := f.bracket(buf[i], i)
		if err != nil || done {
			return end, done, err
		}
		i = end
	}
	return len(buf), false, nil
}

const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// zeroBytes sets the top bit of each byte of v that is zero, and no other bit.
func zeroBytes(v uint64) uint64 {
	const low7 = 0x7f * lo
	return ^((v&low7 + low7) | v | low7)
}

// pack gathers the top bits of v's bytes into its low eight bits.
func pack(v uint64) uint64 {
	return (v >> 7) * 0x0102040810204080 >> 56
}

// skipString returns the index of the first '"' or '\\' in buf at or after i, or
// len(buf), looking at eight bytes at a time.
func skipString(buf []byte, i int) int {
	for ; i+8 <= len(buf); i += 8 {
		x := binary.LittleEndian.Uint64(buf[i:])
		q := x ^ ('"' * lo)
		b := x ^ ('\\' * lo)
		// A zero byte of q or b is a stop byte of x; the lowest flag is exact
		// (borrows only raise false flags above a true one).
		if t := ((q-lo)&^q | (b-lo)&^b) & hi; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for i < len(buf) && !inside[buf[i]] {
		i++
	}
	return i
}
