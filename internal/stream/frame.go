package stream

import (
	"encoding/binary"
	"io"
)

// FrameHeader is the length prefix of a length-delimited frame: 4 bytes,
// big-endian, as a protobuf watch stream has them.
const FrameHeader = 4

// FrameEnd frames the length-prefixed frame that starts at v[0], for a
// caller that is handed a stream's bytes as they come rather than reading
// them (the trace, which watches a body the client reads). It returns the
// frame's whole length, prefix included, once all of it is in v, and -1
// while v ends first. Once the prefix is in v, length is what it announces;
// ErrTooLarge, before any of the body is needed, when prefix and body would
// be more than limit bytes. NextFrame frames with it too.
func FrameEnd(v []byte, limit int) (end int, length uint32, err error) {
	if len(v) < FrameHeader {
		return -1, 0, nil
	}
	length = binary.BigEndian.Uint32(v)
	if uint64(length)+FrameHeader > uint64(limit) {
		return -1, length, ErrTooLarge
	}
	if n := FrameHeader + int(length); n <= len(v) {
		return n, length, nil
	}
	return -1, length, nil
}

// NextFrame reads the next length-prefixed frame and takes it, reading only
// until its last byte is buffered. It returns the frame's body (after the
// prefix), valid until the next Fill, and the stream offset of its prefix.
// It returns io.EOF when the stream ends between frames, io.ErrUnexpectedEOF
// when it ends inside one, ErrTooLarge, before reading any of the body, when
// the prefix announces more than the Reader's limit (the length is returned
// as the frame's length is not otherwise known), and the Reader's errors as
// Fill does.
func (r *Reader) NextFrame() (body []byte, off int64, length uint32, err error) {
	off = r.Offset()
	if len(r.Buffered()) == 0 {
		if err := r.Fill(); err != nil {
			return nil, off, 0, err // io.EOF here is a clean end
		}
	}
	if err := r.Ensure(FrameHeader); err != nil {
		return nil, off, 0, err
	}
	end, length, err := FrameEnd(r.Buffered(), r.limit)
	if err != nil {
		return nil, off, length, err
	}
	if end < 0 {
		if err := r.Ensure(FrameHeader + int(length)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, off, length, err
		}
	}
	r.Take(FrameHeader)
	return r.Take(int(length)), off, length, nil
}
