package stream

import (
	"errors"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// SkipSpace consumes JSON whitespace, reading as needed, until a byte that is
// not space is buffered. It returns io.EOF (bare) when the stream ends first,
// and the Reader's other errors as Fill does.
func (r *Reader) SkipSpace() error {
	for {
		for r.pos < r.end {
			switch r.buf[r.pos] {
			case ' ', '\t', '\r', '\n':
				r.pos++
			default:
				return nil
			}
		}
		if err := r.Fill(); err != nil {
			return err
		}
	}
}

// NextJSON frames the next JSON value with f, nested at most maxDepth deep (0
// means MaxDepth), reading only until its last byte is buffered, and takes it.
// It returns the value's bytes, valid until the next Fill, and its stream
// offset. It returns io.EOF when the stream ends before a value begins,
// io.ErrUnexpectedEOF when it ends inside one, ErrTooLarge when the value is
// longer than the Reader's limit, a *jsonx.SyntaxError at its stream offset
// when framing fails, and the Reader's errors as Fill does.
func (r *Reader) NextJSON(f *JSONFramer, maxDepth int) ([]byte, int64, error) {
	if err := r.SkipSpace(); err != nil {
		return nil, r.Offset(), err
	}
	off := r.Offset()
	f.Reset(maxDepth)
	for {
		n, err := f.Scan(r.Buffered())
		if err != nil {
			var se *jsonx.SyntaxError
			if errors.As(err, &se) {
				se.Offset += off // Scan's error is its own, with an index into the value
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
