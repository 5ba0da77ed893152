package jsonx

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/podwatch/podwatch/internal/stream/jsonstr"
)

// SyntaxError is malformed JSON at a byte offset of the input the Reader was given.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Shift returns the error moved by bytes: a decoder that read a value from
// inside a larger stream reports the error at the stream's offset. Each of
// podwatch's wire formats has a SyntaxError with this method.
func (e *SyntaxError) Shift(bytes int64) error {
	return &SyntaxError{Offset: e.Offset + bytes, Msg: e.Msg}
}

// maxDepth bounds nesting so a hostile document cannot exhaust the stack.
const maxDepth = 10000

// Reader pulls JSON values from a byte slice without allocating for what it skips
// or captures: Raw returns subslices of the input. It stops at the first error,
// after which every read returns a zero value and Err reports it.
type Reader struct {
	data  []byte
	pos   int
	depth int
	err   error
	// Base is added to offsets in errors, for inputs cut from a larger stream.
	Base int64
	// scratch holds unescaped keys.
	scratch []byte
	// stack holds the open brackets of a value being skipped.
	stack []byte
	// arena holds the small values Keep copied since the last Reset. It is
	// never reused: the objects decoded before a Reset still point into it.
	arena []byte
}

// NewReader reads data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// Reset makes r read data from its start, keeping its scratch space.
func (r *Reader) Reset(data []byte) {
	*r = Reader{data: data, scratch: r.scratch[:0], stack: r.stack[:0]}
}

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Pos is the offset of the next unread byte.
func (r *Reader) Pos() int { return r.pos }

// Fail records err at the current position unless an error is already recorded.
func (r *Reader) Fail(msg string) {
	if r.err == nil {
		r.err = &SyntaxError{Offset: r.Base + int64(r.pos), Msg: msg}
	}
}

func (r *Reader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it, or 0 at the end.
// A byte above ' ' at the cursor, the common case in what servers send, is
// returned without entering the whitespace loop.
func (r *Reader) peek() byte {
	if r.err != nil {
		return 0
	}
	if r.pos < len(r.data) && r.data[r.pos] > ' ' {
		return r.data[r.pos]
	}
	r.skipSpace()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// Kind returns the first byte of the next value: '{', '[', '"', 'n', 't', 'f',
// a digit or '-'; 0 at the end of input or after an error.
func (r *Reader) Kind() byte { return r.peek() }

// AtEnd reports whether only whitespace remains.
func (r *Reader) AtEnd() bool {
	if r.err != nil {
		return false
	}
	r.skipSpace()
	return r.pos >= len(r.data)
}

func (r *Reader) expect(c byte, what string) bool {
	if r.peek() != c {
		if r.err == nil {
			if r.pos >= len(r.data) {
				r.Fail("unexpected end of input, want " + what)
			} else {
				r.Fail(fmt.Sprintf("found %q, want %s", r.data[r.pos], what))
			}
		}
		return false
	}
	r.pos++
	return true
}

// Null consumes a null and reports true when the next value is one.
func (r *Reader) Null() bool {
	if r.peek() != 'n' {
		return false
	}
	r.literal("null")
	return r.err == nil
}

func (r *Reader) literal(word string) {
	if len(r.data)-r.pos < len(word) || string(r.data[r.pos:r.pos+len(word)]) != word {
		r.Fail("invalid literal, want " + word)
		return
	}
	r.pos += len(word)
}

// Object calls member for each member of the next object, with the key (valid
// only during the call); member must consume the value. null counts as an empty
// object. It returns false when the value was not an object or an error occurred.
func (r *Reader) Object(member func(key []byte)) bool {
	if r.Null() {
		return true
	}
	if !r.expect('{', "an object") {
		return false
	}
	if !r.enter() {
		return false
	}
	defer func() { r.depth-- }()
	if r.peek() == '}' {
		r.pos++
		return true
	}
	for r.err == nil {
		key := r.key()
		if !r.expect(':', "':' after an object key") {
			return false
		}
		start := r.pos
		member(key)
		if r.err == nil && r.pos == start {
			r.Fail("member value not consumed")
		}
		switch r.peek() {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return r.err == nil
		default:
			r.expect('}', "',' or '}' in an object")
			return false
		}
	}
	return false
}

// Array calls elem for each element of the next array; elem must consume it.
// null counts as an empty array.
func (r *Reader) Array(elem func()) bool {
	if r.Null() {
		return true
	}
	if !r.expect('[', "an array") {
		return false
	}
	if !r.enter() {
		return false
	}
	defer func() { r.depth-- }()
	if r.peek() == ']' {
		r.pos++
		return true
	}
	for r.err == nil {
		start := r.pos
		elem()
		if r.err == nil && r.pos == start {
			r.Fail("array element not consumed")
		}
		switch r.peek() {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return r.err == nil
		default:
			r.expect(']', "',' or ']' in an array")
			return false
		}
	}
	return false
}

func (r *Reader) enter() bool {
	r.depth++
	if r.depth > maxDepth {
		r.Fail("nesting too deep")
		return false
	}
	return true
}

// key reads an object key, decoded as String decodes a value; the result
// aliases the input or scratch space.
func (r *Reader) key() []byte {
	raw, text := r.stringBody()
	if r.err != nil || text {
		return raw
	}
	r.scratch = unescape(r.scratch[:0], raw)
	return r.scratch
}

// String reads a string value, decoded as encoding/json decodes one: escapes
// resolved (a lone surrogate escape as U+FFFD) and each byte that is not
// part of valid UTF-8 replaced by U+FFFD, so that a string read here is the
// one encoding/json, protowire's Reader and the CBOR path give.
func (r *Reader) String() string {
	raw, text := r.rawString()
	if r.err != nil {
		return ""
	}
	if text {
		return string(raw)
	}
	return string(unescape(nil, raw))
}

// rawString reads a string value and returns the bytes between its quotes,
// a subslice of the input, and whether they are its text (see stringBody).
func (r *Reader) rawString() ([]byte, bool) {
	if r.peek() != '"' {
		r.expect('"', "a string")
		return nil, false
	}
	return r.stringBody()
}

// stringBody consumes a string and returns the bytes between its quotes, and
// whether they are its text as they are: no escape, and valid UTF-8 (checked
// only when a byte is above 0x7f). Otherwise unescape makes the text. A
// well-formed string at the cursor is scanned by stringEnd; anything else by
// stringBodyChecked, which says what is wrong and where.
func (r *Reader) stringBody() ([]byte, bool) {
	if r.err == nil && r.pos < len(r.data) && r.data[r.pos] == '"' {
		if end, plain, ok := stringEnd(r.data, r.pos+1); ok {
			start := r.pos + 1
			r.pos = end
			raw := r.data[start : end-1]
			return raw, plain || isText(raw)
		}
	}
	return r.stringBodyChecked()
}

// isText reports whether a string's content holds no escape and is valid
// UTF-8, so that it is the string's text as it is.
func isText(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// stringBodyChecked is stringBody for any input: it skips whitespace before
// the string and reports the first error at its offset.
func (r *Reader) stringBodyChecked() ([]byte, bool) {
	if !r.expect('"', "a string") {
		return nil, false
	}
	start := r.pos
	escaped := false
	for i := r.pos; i < len(r.data); i++ {
		i = jsonstr.PlainEnd(r.data, i)
		if i >= len(r.data) {
			break
		}
		c := r.data[i]
		switch {
		case c == '"':
			r.pos = i + 1
			raw := r.data[start:i]
			return raw, !escaped && utf8.Valid(raw)
		case c == '\\':
			escaped = true
			i++
			if i >= len(r.data) {
				break
			}
			switch r.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(r.data) || !isHex4(r.data[i+1:i+5]) {
					r.pos = i
					r.Fail(`invalid \u escape`)
					return nil, false
				}
				i += 4
			default:
				r.pos = i
				r.Fail("invalid escape in string")
				return nil, false
			}
		case c < 0x20:
			r.pos = i
			r.Fail("control character in string")
			return nil, false
		}
	}
	r.pos = len(r.data)
	r.Fail("unexpected end of input inside a string")
	return nil, false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// unescape appends the text of a validated string body to dst: escapes
// resolved, and each byte that is not part of valid UTF-8 replaced by U+FFFD,
// as encoding/json does.
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size - 1
			continue
		}
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r1 := hexRune(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r1) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' && isHex4(s[i+3:]) {
				if r := utf16.DecodeRune(r1, hexRune(s[i+3:i+7])); r != utf8.RuneError {
					r1 = r
					i += 6
				}
			}
			if utf16.IsSurrogate(r1) {
				r1 = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r1)
		default: // '"', '\\', '/'
			dst = append(dst, s[i])
		}
	}
	return dst
}

func hexRune(b []byte) rune {
	v, _ := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v)
}

// Int64 reads an integer.
func (r *Reader) Int64() int64 {
	num := r.number()
	if r.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		r.Fail(fmt.Sprintf("want a 64-bit integer, found %s", num))
	}
	return v
}

// Bool reads true or false.
func (r *Reader) Bool() bool {
	switch r.peek() {
	case 't':
		r.literal("true")
		return r.err == nil
	case 'f':
		r.literal("false")
	default:
		r.expect('t', "a boolean")
	}
	return false
}

// number consumes a JSON number and returns its text.
func (r *Reader) number() []byte {
	r.peek()
	start := r.pos
	i := r.pos
	if i < len(r.data) && r.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(r.data) && '0' <= r.data[i] && r.data[i] <= '9' {
		i++
	}
	if i == digits || (r.data[digits] == '0' && i-digits > 1) {
		r.Fail("invalid number")
		return nil
	}
	if i < len(r.data) && r.data[i] == '.' {
		i++
		f := i
		for i < len(r.data) && '0' <= r.data[i] && r.data[i] <= '9' {
			i++
		}
		if i == f {
			r.pos = i
			r.Fail("invalid number")
			return nil
		}
	}
	if i < len(r.data) && (r.data[i] == 'e' || r.data[i] == 'E') {
		i++
		if i < len(r.data) && (r.data[i] == '+' || r.data[i] == '-') {
			i++
		}
		e := i
		for i < len(r.data) && '0' <= r.data[i] && r.data[i] <= '9' {
			i++
		}
		if i == e {
			r.pos = i
			r.Fail("invalid number")
			return nil
		}
	}
	r.pos = i
	return r.data[start:i]
}

// Skip consumes the next value, checking that it is well-formed.
func (r *Reader) Skip() { r.skipValue() }

// Raw consumes the next value and returns its bytes, a subslice of the
// input: checked, not decoded, so a string in it holds what was sent,
// invalid UTF-8 included.
func (r *Reader) Raw() []byte {
	r.peek()
	start := r.pos
	r.Skip()
	if r.err != nil {
		return nil
	}
	return r.data[start:r.pos]
}
