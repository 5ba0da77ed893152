package jsonx

// AppendString reads a string value and appends its text, decoded as String
// decodes it, to dst, for a reader that copies strings into a buffer of its
// own (the protobuf encoder) and so needs neither a Go string nor an
// allocation.
func (r *Reader) AppendString(dst []byte) []byte {
	if r.peek() != '"' {
		r.expect('"', "a string")
		return dst
	}
	raw, text := r.stringBody()
	if r.err != nil {
		return dst
	}
	if text {
		return append(dst, raw...)
	}
	return unescape(dst, raw)
}
