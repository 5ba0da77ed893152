package jsonx

import "fmt"

// skipRecursive is the obvious recursive skip, kept as the reference the fast
// one is tested against.
func (r *Reader) skipRecursive() {
	switch r.peek() {
	case '{':
		r.Object(r.skipMember)
	case '[':
		r.Array(r.skipRecursive)
	case '"':
		r.stringBody()
	case 't':
		r.literal("true")
	case 'f':
		r.literal("false")
	case 'n':
		r.literal("null")
	case 0:
		if r.err == nil && r.pos >= len(r.data) {
			r.Fail("unexpected end of input, want a value")
		} else {
			r.Fail("found a NUL byte, want a value")
		}
	default:
		c := r.data[r.pos]
		if c == '-' || '0' <= c && c <= '9' {
			r.number()
			return
		}
		r.Fail(fmt.Sprintf("found %q, want a value", c))
	}
}

func (r *Reader) skipMember([]byte) { r.skipRecursive() }
