package jsonx

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/internal/stream/jsonstr"
)

// MaxDepth bounds nesting, as Reader and encoding/json do.
const MaxDepth = maxDepth

// Framer finds where one JSON value ends: the framer the list and watch
// decoders cut JSON values out of a body with, on podwatch's one buffered
// reader. Scan is handed the value's bytes so
// far and called again, with the same bytes and more, until the end is in
// them; each byte is scanned once. It follows what finding the end needs
// (strings and their escapes, brackets, the bound on nesting) and leaves
// checking the value to its decoder.
type Framer struct {
	// MaxDepth bounds the value's nesting; 0 means MaxDepth. A value read
	// from inside a larger document is bounded by what is left of it.
	MaxDepth int

	depth    int // brackets open outside strings
	pos      int // next byte to scan
	started  bool
	inString bool
	scalar   bool
	// inner and innerEnd locate the last object or array directly inside the
	// value (inner < 0 if none): in a watch event that is the event's object,
	// which then need not be scanned again.
	inner, innerEnd int
}

var _ stream.Framer = (*Framer)(nil)

// Reset readies f for a new value; MaxDepth is kept.
func (f *Framer) Reset() {
	*f = Framer{MaxDepth: f.MaxDepth, inner: -1, innerEnd: -1}
}

// Space returns the length of the whitespace v begins with.
func (f *Framer) Space(v []byte) int {
	i := 0
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\r' || v[i] == '\n') {
		i++
	}
	return i
}

func (f *Framer) maxDepth() int {
	if f.MaxDepth <= 0 {
		return MaxDepth
	}
	return f.MaxDepth
}

// Inner returns where the last object or array directly inside the framed
// value starts and ends, or -1, -1.
func (f *Framer) Inner() (start, end int) { return f.inner, f.innerEnd }

// Scan continues framing the value that starts at v[0] (not a space). It
// returns the value's length once its end is in v, or -1 when v ends first.
// A number or literal ends at the first byte that cannot continue it, so one
// that ends v is not yet complete. A value that cannot start with v[0], or
// nesting past the bound, is a *SyntaxError whose Offset is the index in v of
// the byte at fault. limit is not looked at: only the bytes themselves tell
// where a JSON value ends, and the Reader stops growing at its limit.
func (f *Framer) Scan(v []byte, limit int) (int, error) {
	if !f.started {
		if f.inner == 0 && f.innerEnd == 0 {
			f.Reset() // the zero Framer
		}
		f.started = true
		switch c := v[0]; {
		case c == '"':
			f.inString, f.pos = true, 1
		case c == '{' || c == '[':
		case scalarByte(c):
			f.scalar = true
		default:
			return -1, syntaxAt(0, "found %q, want a value", c)
		}
	}
	if f.scalar {
		return f.scanScalar(v)
	}
	if f.inString {
		end, ok := framedStringEnd(v, f.pos)
		if !ok {
			f.pos = end
			return -1, nil
		}
		f.inString = false
		if f.depth == 0 {
			return end, nil
		}
		f.pos = end
	}
	return f.scanStructure(v)
}

// scanStructure scans outside strings, jumping through each string whole. It
// counts brackets without matching them: for well-formed JSON the count finds
// the end, and a value whose brackets do not match is malformed whichever
// bracket ends it, for its decoder to reject.
func (f *Framer) scanStructure(v []byte) (int, error) {
	depth, i := f.depth, f.pos
	for ; i < len(v); i++ {
		c := v[i]
		if !structural[c] {
			continue
		}
		switch c {
		case '"':
			// Strings are most of an object's bytes: jump through them.
			end, ok := framedStringEnd(v, i+1)
			if !ok {
				f.pos, f.depth, f.inString = end, depth, true
				return -1, nil
			}
			i = end - 1 // the loop steps past the closing quote
		case '{', '[':
			if depth >= f.maxDepth() {
				return -1, syntaxAt(i, "nesting too deep")
			}
			depth++
			if depth == 2 {
				f.inner = i
			}
		case '}', ']':
			depth--
			switch depth {
			case 0:
				return i + 1, nil
			case 1:
				f.innerEnd = i + 1
			}
		}
	}
	f.pos, f.depth = i, depth
	return -1, nil
}

func (f *Framer) scanScalar(v []byte) (int, error) {
	i := f.pos
	for i < len(v) && scalarByte(v[i]) {
		i++
	}
	f.pos = i
	if i == len(v) {
		return -1, nil
	}
	return i, nil
}

var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// scalarByte reports whether c may be part of a number or literal.
func scalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// framedStringEnd scans a string's body from v[i]. It returns the index just past the
// closing quote and true, or, when v ends first, where to resume and false. A
// backslash at the very end is left to be scanned again with what follows it.
// Control bytes are invalid in a string, but framing steps over them: the
// value's decoder rejects them.
func framedStringEnd(v []byte, i int) (int, bool) {
	for {
		i = jsonstr.PlainEnd(v, i)
		switch {
		case i >= len(v):
			return len(v), false
		case v[i] == '"':
			return i + 1, true
		case v[i] != '\\':
			i++
		case i+1 >= len(v):
			return i, false
		default:
			i += 2 // a backslash and the byte it escapes
		}
	}
}

func syntaxAt(i int, format string, args ...any) error {
	return &SyntaxError{Offset: int64(i), Msg: fmt.Sprintf(format, args...)}
}
