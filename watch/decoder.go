package watch

import (
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// DecoderOptions tunes a Decoder; the zero value works.
type DecoderOptions struct {
	// MaxFrameSize bounds one event's bytes, and so the Decoder's buffer;
	// 0 means DefaultMaxFrameSize. The JSON written for a protobuf or CBOR
	// event is bounded alike.
	MaxFrameSize int
	// KeepRaw sets Event.Raw to a copy of each event as JSON: the bytes the
	// server sent for a JSON stream, the JSON it would have sent for a
	// protobuf or CBOR one.
	KeepRaw bool
	// Format is the stream's wire format (see wire.ParseContentType): JSON,
	// the zero value; protobuf (length-prefixed WatchEvent frames); or CBOR
	// (a sequence of self-described items).
	Format wire.Format
}

// DefaultMaxFrameSize is the default bound on one event. The apiserver refuses
// objects much over 1.5 MiB, so 16 MiB only stops a broken or hostile stream.
const DefaultMaxFrameSize = 16 << 20

// Decoder reads watch events from a stream, one per Decode call, on the caller's
// goroutine. It is not safe for concurrent use.
type Decoder[T any] struct {
	codec  meta.Codec[T]
	limit  int
	keep   bool
	in     *stream.Reader
	events *wire.Events
	err    error // sticky: once Decode fails it keeps failing the same way
}

// NewDecoder returns a Decoder reading r and decoding each event's object with
// codec: from its protobuf message when the stream is protobuf and
// codec.Protobuf is set, else from its JSON (a protobuf or CBOR object
// transcoded to the JSON the server would have sent). The codec is handed
// the object's bytes, which it must check (the Decoder frames the object but
// does not validate it) and may not keep: they are reused by the next Decode.
// An ERROR event's Status is read the same way in every format. The Decoder
// never closes r.
func NewDecoder[T any](r io.Reader, codec meta.Codec[T], opts DecoderOptions) *Decoder[T] {
	limit := opts.MaxFrameSize
	if limit <= 0 {
		limit = DefaultMaxFrameSize
	}
	return &Decoder[T]{in: stream.NewReader(r, limit), codec: codec, limit: limit, keep: opts.KeepRaw,
		events: opts.Format.Events(limit)}
}

// Decode returns the next event. It reads only until that event's last byte
// has arrived, so it blocks only while the event is incomplete.
//
// It returns io.EOF when the stream ends between events (whitespace allowed), an
// error wrapping io.ErrUnexpectedEOF when it ends inside one, an error wrapping
// the reader's when a Read fails, *FrameTooLargeError (for a protobuf frame,
// found from its length prefix, before any of it is read),
// *UnknownEventTypeError or *ObjectError for bad events, and for malformed
// bytes the format's syntax error at its stream offset: a
// *jsonx.SyntaxError, a *protowire.SyntaxError or *protowire.MagicError, a
// *cborwire.SyntaxError (at the item's offset, when its JSON is not a good
// event). A server ERROR event is not an error of Decode: it is returned as
// an Event whose Err is a *rest.StatusError. After an error every call
// returns the same error.
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
	frame, off, err := d.in.Next(d.events)
	if err != nil {
		return Event[T]{}, d.frameErr(err, off)
	}
	we, err := d.events.Read(frame, off)
	if err != nil {
		return Event[T]{}, d.tooLarge(err, off)
	}
	typ, ok := eventType(we.Type)
	if !ok {
		return Event[T]{}, &UnknownEventTypeError{Offset: off, Type: string(we.Type)}
	}
	ev := Event[T]{Type: typ, Offset: off}
	if typ == Error {
		st, located, err := wire.Decode(&d.events.Transcoder, we.Object, statusCodec)
		if err != nil {
			return Event[T]{}, d.objectErr(err, located, typ, we.Object, off)
		}
		ev.Err = rest.NewStatusErrorFromStatus("", st)
	} else {
		v, located, err := wire.Decode(&d.events.Transcoder, we.Object, d.codec)
		if err != nil {
			return Event[T]{}, d.objectErr(err, located, typ, we.Object, off)
		}
		ev.Object = v
	}
	if d.keep {
		if ev.Raw, err = d.events.JSON(we); err != nil {
			return Event[T]{}, d.tooLarge(err, off)
		}
	}
	return ev, nil
}

var statusCodec = meta.Codec[*meta.Status]{JSON: meta.ParseStatus}

// frameErr names where framing the event at off stopped; io.EOF stays bare,
// as io.Reader's contract has it, and a format's syntax errors stay as they
// are.
func (d *Decoder[T]) frameErr(err error, off int64) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case err == stream.ErrTooLarge:
		return &FrameTooLargeError{Offset: off, Limit: d.limit}
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("watch stream ended inside the event at byte %d: %w", off, io.ErrUnexpectedEOF)
	}
	if _, ok := stream.AtStream(err, 0); ok {
		return err
	}
	return fmt.Errorf("read watch stream at byte %d: %w", d.in.ReadOffset(), err)
}

// tooLarge turns an event whose JSON would pass the limit into the frame
// error it is; other errors stay as they are.
func (d *Decoder[T]) tooLarge(err error, off int64) error {
	var pl *protowire.TooLargeError
	var cl *cborwire.TooLargeError
	if errors.As(err, &pl) || errors.As(err, &cl) {
		return &FrameTooLargeError{Offset: off, Limit: d.limit}
	}
	return err
}

// objectErr places a failure to decode the object of an event at off.
func (d *Decoder[T]) objectErr(err error, located bool, typ EventType, obj wire.Object, off int64) error {
	if located {
		return err
	}
	if err = d.tooLarge(err, off); errors.As(err, new(*FrameTooLargeError)) {
		return err
	}
	return &ObjectError{Offset: obj.Offset, Type: typ, Err: err}
}

// eventType maps the type's JSON string body to an EventType without
// allocating for the five known ones.
func eventType(b []byte) (EventType, bool) {
	switch string(b) {
	case "ADDED":
		return Added, true
	case "MODIFIED":
		return Modified, true
	case "DELETED":
		return Deleted, true
	case "BOOKMARK":
		return Bookmark, true
	case "ERROR":
		return Error, true
	}
	return "", false
}
