package stream

import (
	"errors"
	"io"
)

// ErrTooLarge is what Fill and Ensure return when the caller needs more than
// the Reader's limit of bytes buffered at once: the value being read is larger
// than the limit. Callers turn it into a typed error that says which value.
var ErrTooLarge = errors.New("stream: value larger than the limit")

const (
	initialSize = 32 << 10
	// minRead is the least free space worth a Read call: below it the buffer is
	// compacted or grown first.
	minRead = 4 << 10
	// maxEmptyReads is how many (0, nil) reads in a row mean a broken reader.
	maxEmptyReads = 100
)

// Reader buffers a stream for a decoder that frames values out of it. The
// unread bytes are Buffered; Fill reads more, Take consumes. It is not safe for
// concurrent use.
type Reader struct {
	r     io.Reader
	limit int
	buf   []byte
	pos   int   // first unread byte
	end   int   // end of the buffered data
	base  int64 // stream offset of buf[0]
	err   error // what a Read returned beside its data, returned once the data is used
}

// NewReader returns a Reader of r that never holds more than limit unread
// bytes, and so never grows its buffer past limit.
func NewReader(r io.Reader, limit int) *Reader {
	return &Reader{r: r, limit: max(limit, 1)}
}

// Offset is the stream offset of the first unread byte.
func (r *Reader) Offset() int64 { return r.base + int64(r.pos) }

// ReadOffset is the stream offset just past the last byte read: where a
// failed Read failed.
func (r *Reader) ReadOffset() int64 { return r.base + int64(r.end) }

// Buffered returns the unread bytes. They stay valid, and in place, until the
// next Fill or Ensure.
func (r *Reader) Buffered() []byte { return r.buf[r.pos:r.end] }

// Take consumes the first n unread bytes and returns them; they stay valid
// until the next Fill or Ensure.
func (r *Reader) Take(n int) []byte {
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

// Limit is the most unread bytes the Reader holds.
func (r *Reader) Limit() int { return r.limit }

// Size is how large the buffer has grown; never more than the limit.
func (r *Reader) Size() int { return len(r.buf) }

// Fill reads at least one more byte, keeping every unread byte. It returns
// ErrTooLarge without reading when limit bytes are already unread; io.EOF
// (bare, as io.Reader's contract has it) when the stream ended; the reader's
// error, or io.ErrNoProgress after many empty reads, when it failed. An error
// that came with data is returned by the next call, once that data is used.
func (r *Reader) Fill() error {
	if r.err != nil {
		return r.err
	}
	if r.end-r.pos >= r.limit {
		return ErrTooLarge
	}
	r.makeRoom()
	for range maxEmptyReads {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	r.err = io.ErrNoProgress
	return r.err
}

// Ensure fills until at least n bytes are unread: a length-prefixed frame's
// way to wait for its body. It returns io.ErrUnexpectedEOF if the stream ends
// first, and ErrTooLarge if n is over the limit.
func (r *Reader) Ensure(n int) error {
	if n > r.limit {
		return ErrTooLarge
	}
	for r.end-r.pos < n {
		if err := r.Fill(); err != nil {
			return Truncated(err)
		}
	}
	return nil
}

// Truncated is what a Fill error means inside a value: io.EOF there is
// io.ErrUnexpectedEOF.
func Truncated(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// makeRoom makes free space after end, by moving the unread bytes to the front
// and, if that is not enough, growing the buffer by doubling up to the limit.
func (r *Reader) makeRoom() {
	if len(r.buf)-r.end >= minRead {
		return
	}
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.base += int64(r.pos)
		r.pos = 0
	}
	if len(r.buf)-r.end >= minRead || len(r.buf) >= r.limit {
		return
	}
	nb := make([]byte, min(max(2*len(r.buf), initialSize), r.limit))
	copy(nb, r.buf[:r.end])
	r.buf = nb
}
