package jsonx

import "fmt"

// skipValue consumes one value, checking its grammar, without recursion or
// callbacks: an explicit stack of open brackets drives it. It is the hot path
// for every member podwatch keeps without modelling: skipFast takes what it
// can, and this walk decides the rest and names the fault.
func (r *Reader) skipValue() {
	if r.err == nil {
		if end, ok := skipFast(r.data, r.pos, maxDepth-r.depth); ok {
			r.pos = end
			return
		}
	}
	stack := r.stack[:0]
	defer func() { r.stack = stack[:0] }()
	for r.err == nil {
		// A value is expected here.
		switch c := r.peek(); c {
		case '{':
			r.pos++
			if r.depth+len(stack) >= maxDepth {
				r.Fail("nesting too deep")
				return
			}
			if r.peek() == '}' {
				r.pos++
				break
			}
			stack = append(stack, '{')
			if !r.memberKey() {
				return
			}
			continue
		case '[':
			r.pos++
			if r.depth+len(stack) >= maxDepth {
				r.Fail("nesting too deep")
				return
			}
			if r.peek() == ']' {
				r.pos++
				break
			}
			stack = append(stack, '[')
			continue
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
			return
		default:
			if c == '-' || '0' <= c && c <= '9' {
				r.number()
			} else {
				r.Fail(fmt.Sprintf("found %q, want a value", c))
				return
			}
		}
		// A value ended: close what it completes, then expect the next one.
		for r.err == nil {
			if len(stack) == 0 {
				return
			}
			top := stack[len(stack)-1]
			c := r.peek()
			if c == ',' {
				r.pos++
				if top == '{' && !r.memberKey() {
					return
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				r.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '{' {
				r.expect('}', "',' or '}' in an object")
			} else {
				r.expect(']', "',' or ']' in an array")
			}
			return
		}
	}
}

// memberKey consumes `"key":` inside an object being skipped.
func (r *Reader) memberKey() bool {
	if r.peek() != '"' {
		r.expect('"', "an object key")
		return false
	}
	r.stringBody()
	return r.expect(':', "':' after an object key")
}
