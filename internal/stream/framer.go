package stream

// A Framer finds where one value of its wire format ends, in bytes that
// arrive piecemeal. The codecs own their framers (jsonx's for JSON,
// protowire's for length-prefixed frames, cborwire's for CBOR items); the
// Reader frames with any of them through Next, and a caller handed a stream's
// bytes as they come (the trace) calls Scan itself.
type Framer interface {
	// Space returns how many of v's leading bytes lie between values and are
	// dropped before the next one starts: JSON's whitespace; none for formats
	// whose values follow one another byte for byte.
	Space(v []byte) int
	// Reset readies the framer for a new value.
	Reset()
	// Scan continues framing the value that starts at v[0]; it is called
	// again, with the same bytes and more, until the value's end is in them.
	// It returns the value's length once its last byte is in v, and -1 while
	// v ends first. limit is the most bytes the value may take: a value
	// known to be longer (from a header, before its body has come) is
	// ErrTooLarge. A malformed value is the format's syntax error at an index
	// into v, which Next moves to the stream offset (see AtStream).
	Scan(v []byte, limit int) (int, error)
}

// Skip drops the bytes f says lie between values, reading as needed, until
// a byte of the next value is buffered. It returns io.EOF (bare) when the
// stream ends first, and the Reader's other errors as Fill does.
func (r *Reader) Skip(f Framer) error {
	for {
		r.pos += f.Space(r.buf[r.pos:r.end])
		if r.pos < r.end {
			return nil
		}
		if err := r.Fill(); err != nil {
			return err
		}
	}
}

// Next frames the next value with f, reading only until its last byte is
// buffered, and takes it. It returns the value's bytes, valid until the next
// Fill, and its stream offset. It returns io.EOF when the stream ends before
// a value begins, io.ErrUnexpectedEOF when it ends inside one, ErrTooLarge
// when the value is longer than the Reader's limit, f's syntax error at its
// stream offset when framing fails, and the Reader's errors as Fill does.
func (r *Reader) Next(f Framer) ([]byte, int64, error) {
	if err := r.Skip(f); err != nil {
		return nil, r.Offset(), err
	}
	off := r.Offset()
	f.Reset()
	for {
		n, err := f.Scan(r.Buffered(), r.limit)
		if err != nil {
			if moved, ok := AtStream(err, off); ok {
				err = moved
			}
			return nil, off, err
		}
		if n >= 0 {
			return r.Take(n), off, nil
		}
		if err := r.Fill(); err != nil {
			return nil, off, Truncated(err)
		}
	}
}
