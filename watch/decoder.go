package watch

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// DecoderOptions tunes a Decoder; the zero value works.
type DecoderOptions struct {
	// MaxFrameSize bounds one event's bytes, and so the Decoder's buffer;
	// 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// KeepRaw sets Event.Raw to a copy of each event's bytes.
	KeepRaw bool
}

// DefaultMaxFrameSize is the default bound on one event. The apiserver refuses
// objects much over 1.5 MiB, so 16 MiB only stops a broken or hostile stream.
const DefaultMaxFrameSize = 16 << 20

const (
	initialBufSize = 32 << 10
	// minRead is the least free space worth a Read call: below it the buffer is
	// compacted or grown first.
	minRead = 4 << 10
	// maxEmptyReads is how many (0, nil) reads in a row mean a broken reader.
	maxEmptyReads = 100
)

// Decoder reads watch events from a stream, one per Decode call, on the caller's
// goroutine. It is not safe for concurrent use.
type Decoder[T any] struct {
	r      io.Reader
	decode meta.DecodeFunc[T]
	limit  int
	keep   bool

	buf   []byte // buf[start:end] is read but not yet returned
	start int
	end   int
	base  int64 // stream offset of buf[0]
	rerr  error // what the last Read returned with its data, handled once the data is used
	err   error // sticky: once Decode fails it keeps failing the same way

	// objAt and objEnd locate, in the last frame, the last object directly inside
	// it (objAt < 0 if none): usually the event's object, found without a rescan.
	objAt, objEnd int

	jr jsonx.Reader // reused for the envelope, so its scratch space is too
}

// NewDecoder returns a Decoder reading r and decoding each event's object with
// decode. decode is handed the object's bytes, which it must check (the Decoder
// frames the object but does not validate it) and may not keep: they are reused
// by the next Decode. The Decoder never closes r.
func NewDecoder[T any](r io.Reader, decode meta.DecodeFunc[T], opts DecoderOptions) *Decoder[T] {
	limit := opts.MaxFrameSize
	if limit <= 0 {
		limit = DefaultMaxFrameSize
	}
	return &Decoder[T]{r: r, decode: decode, limit: limit, keep: opts.KeepRaw}
}

// Decode returns the next event. It reads only until that event's closing brace
// has arrived, so it blocks only while the event is incomplete.
//
// It returns io.EOF when the stream ends between events (whitespace allowed), an
// error wrapping io.ErrUnexpectedEOF when it ends inside one, an error wrapping
// the reader's when a Read fails, *SyntaxError, *FrameTooLargeError,
// *UnknownEventTypeError or *ObjectError for bad events. A server ERROR event is
// not an error of Decode: it is returned as an Event whose Err is a
// *rest.StatusError. After an error every call returns the same error.
func (d *Decoder[T]) Decode() (Event[T], error) {
	if d.err != nil {
		return Event[T]{}, d.err
	}
	ev, err := d.next()
	if err != nil {
		d.err = err
		return Event[T]{}, err
	}
	return ev, nil
}

func (d *Decoder[T]) next() (Event[T], error) {
	frame, off, err := d.frame()
	if err != nil {
		return Event[T]{}, err
	}
	ev, err := d.event(frame, off)
	if err != nil {
		return Event[T]{}, err
	}
	if d.keep {
		ev.Raw = bytes.Clone(frame)
	}
	return ev, nil
}

// frame returns the next event's bytes, valid until the next call, and their
// stream offset.
func (d *Decoder[T]) frame() ([]byte, int64, error) {
	if err := d.skipSpace(); err != nil {
		return nil, 0, err
	}
	off := d.offset()
	if c := d.buf[d.start]; c != '{' {
		return nil, 0, &SyntaxError{Offset: off, Msg: fmt.Sprintf("found %q, want '{' starting an event", c)}
	}
	st := scanState{pos: d.start, open2: -1, close2: -1}
	for {
		if end := scanFrame(d.buf[:d.end], &st); end >= 0 {
			if end-d.start > d.limit {
				return nil, 0, &FrameTooLargeError{Offset: off, Limit: d.limit}
			}
			frame := d.buf[d.start:end]
			d.objAt, d.objEnd = st.open2-d.start, st.close2-d.start+1
			d.start = end
			return frame, off, nil
		}
		if d.end-d.start >= d.limit {
			return nil, 0, &FrameTooLargeError{Offset: off, Limit: d.limit}
		}
		shift, err := d.fill()
		st.shift(shift)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, 0, fmt.Errorf("watch stream ended inside the event at byte %d: %w", off, io.ErrUnexpectedEOF)
			}
			return nil, 0, err
		}
	}
}

// skipSpace drops whitespace before the next event, reading as needed; it
// returns io.EOF (unwrapped, as io.Reader's contract has it) at a clean end.
func (d *Decoder[T]) skipSpace() error {
	for {
		for d.start < d.end {
			switch d.buf[d.start] {
			case ' ', '\t', '\r', '\n':
				d.start++
			default:
				return nil
			}
		}
		if _, err := d.fill(); err != nil {
			return err
		}
	}
}

// offset is the stream offset of buf[start].
func (d *Decoder[T]) offset() int64 { return d.base + int64(d.start) }

// fill reads at least one more byte into buf, keeping buf[start:end]. It returns
// how far the kept bytes moved towards the front, so scan positions can follow.
// A read error is returned only once the bytes read with it have been used.
func (d *Decoder[T]) fill() (int, error) {
	if d.rerr != nil {
		return 0, d.rerr
	}
	shift := d.makeRoom()
	for range maxEmptyReads {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		switch {
		case n > 0:
			d.rerr = d.readErr(err)
			return shift, nil
		case err != nil:
			d.rerr = d.readErr(err)
			return shift, d.rerr
		}
	}
	d.rerr = d.readErr(io.ErrNoProgress)
	return shift, d.rerr
}

// readErr names where a failed read left the stream; io.EOF stays bare, as
// io.Reader's contract has it, and nil stays nil.
func (d *Decoder[T]) readErr(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return fmt.Errorf("read watch stream at byte %d: %w", d.base+int64(d.end), err)
}

// makeRoom makes free space after end, by moving the unreturned bytes to the
// front and, if that is not enough, growing buf by doubling up to the frame
// limit. It returns how far the bytes moved.
func (d *Decoder[T]) makeRoom() int {
	if len(d.buf)-d.end >= minRead {
		return 0
	}
	shift := d.start
	if shift > 0 {
		d.end = copy(d.buf, d.buf[d.start:d.end])
		d.base += int64(shift)
		d.start = 0
	}
	if len(d.buf)-d.end >= minRead || len(d.buf) >= d.limit {
		return shift
	}
	size := min(max(2*len(d.buf), initialBufSize), d.limit)
	nb := make([]byte, size)
	copy(nb, d.buf[:d.end])
	d.buf = nb
	return shift
}
