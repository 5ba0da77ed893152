package watch

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// DecoderOptions tunes a Decoder; the zero value works.
type DecoderOptions struct {
	// MaxFrameSize bounds one event's bytes, and so the Decoder's buffer;
	// 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// KeepRaw sets Event.Raw to a copy of each event's bytes (for protobuf,
	// the event as the JSON the server would have sent for it).
	KeepRaw bool
	// ContentType is the stream's format: "" or rest.ContentTypeJSON, or
	// rest.ContentTypeProtobuf (length-prefixed WatchEvent frames), or
	// rest.ContentTypeCBOR or rest.ContentTypeCBORSeq (a sequence of
	// self-described CBOR items).
	ContentType string
}

// DefaultMaxFrameSize is the default bound on one event. The apiserver refuses
// objects much over 1.5 MiB, so 16 MiB only stops a broken or hostile stream.
const DefaultMaxFrameSize = 16 << 20

// Decoder reads watch events from a stream, one per Decode call, on the caller's
// goroutine. It is not safe for concurrent use.
type Decoder[T any] struct {
	decode meta.DecodeFunc[T]
	limit  int
	keep   bool

	in     *stream.Reader
	framer stream.JSONFramer
	// object frames an event's object that is not the last one the frame
	// scan saw (an unusual member order).
	object stream.JSONFramer
	err    error // sticky: once Decode fails it keeps failing the same way

	jr jsonx.Reader // reused for the envelope, so its scratch space is too

	protobuf bool
	pb       protowire.Transcoder
	decodePB meta.ProtobufDecodeFunc[T] // nil: objects are transcoded to JSON for decode
	unknown  protowire.Unknown          // reused from one frame to the next

	cbor bool
	cf   stream.CBORFramer
	cb   cborwire.Transcoder
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
	return &Decoder[T]{in: stream.NewReader(r, limit), decode: decode, limit: limit, keep: opts.KeepRaw,
		protobuf: opts.ContentType == rest.ContentTypeProtobuf,
		cbor:     opts.ContentType == rest.ContentTypeCBOR || opts.ContentType == rest.ContentTypeCBORSeq,
		// The event's JSON is bounded as a JSON event's bytes are.
		pb: protowire.Transcoder{Limit: limit}, cb: cborwire.Transcoder{Limit: limit}}
}

// WithProtobuf makes d decode the objects of a protobuf stream with decode,
// from their protobuf messages, rather than transcode each to JSON for the
// DecodeFunc: decode must give what the DecodeFunc gives for the same object
// (api.DecodePodProtobuf does for api.DecodePod). ERROR events' Status is
// read as before. It returns d.
func (d *Decoder[T]) WithProtobuf(decode meta.ProtobufDecodeFunc[T]) *Decoder[T] {
	d.decodePB = decode
	return d
}

// Decode returns the next event. It reads only until that event's closing brace
// has arrived, so it blocks only while the event is incomplete.
//
// It returns io.EOF when the stream ends between events (whitespace allowed), an
// error wrapping io.ErrUnexpectedEOF when it ends inside one, an error wrapping
// the reader's when a Read fails, *jsonx.SyntaxError, *FrameTooLargeError,
// *UnknownEventTypeError or *ObjectError for bad events; a protobuf stream's
// malformed frames are a *protowire.SyntaxError or *protowire.MagicError at
// their stream offset, and a frame over the limit a *FrameTooLargeError found
// from its length prefix, before any of it is read; a CBOR stream's are a
// *cborwire.SyntaxError at their stream offset (the item's, when its JSON
// is not a good event). A server ERROR event is
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
	if d.protobuf {
		return d.nextProtobuf()
	}
	if d.cbor {
		return d.nextCBOR()
	}
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
	if err := d.in.SkipSpace(); err != nil {
		return nil, d.in.Offset(), d.readErr(err)
	}
	off := d.in.Offset()
	if c := d.in.Buffered()[0]; c != '{' {
		return nil, 0, &jsonx.SyntaxError{Offset: off, Msg: fmt.Sprintf("found %q, want '{' starting an event", c)}
	}
	frame, _, err := d.in.NextJSON(&d.framer, 0)
	switch {
	case err == nil:
		return frame, off, nil
	case err == stream.ErrTooLarge:
		return nil, 0, &FrameTooLargeError{Offset: off, Limit: d.limit}
	case err == io.ErrUnexpectedEOF:
		return nil, 0, fmt.Errorf("watch stream ended inside the event at byte %d: %w", off, io.ErrUnexpectedEOF)
	}
	return nil, 0, d.readErr(err)
}

// readErr names where a failed read left the stream; io.EOF stays bare, as
// io.Reader's contract has it, and framing's own errors stay as they are.
func (d *Decoder[T]) readErr(err error) error {
	var se *jsonx.SyntaxError
	if err == io.EOF || errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("read watch stream at byte %d: %w", d.in.ReadOffset(), err)
}
