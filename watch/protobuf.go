package watch

import (
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
)

// nextProtobuf decodes one frame of a protobuf watch: a WatchEvent whose
// object is an envelope. The object is transcoded to the JSON the server
// would have sent, so the event logic and the DecodeFunc are those of JSON.
func (d *Decoder[T]) nextProtobuf() (Event[T], error) {
	frame, off, err := d.protoFrame()
	if err != nil {
		return Event[T]{}, err
	}
	body := off + stream.FrameHeader
	we, err := protowire.ParseWatchEvent(frame, body)
	if err != nil {
		return Event[T]{}, err
	}
	if we.Type == "" {
		return Event[T]{}, &protowire.SyntaxError{Offset: body, Msg: "watch event has no type"}
	}
	if !we.HasObject {
		return Event[T]{}, &protowire.SyntaxError{Offset: body, Msg: "watch event has no object"}
	}
	u, err := protowire.ParseEnvelope(we.Object, we.ObjectOffset)
	if err != nil {
		return Event[T]{}, err
	}
	obj, err := d.pb.Object(u)
	var tl *protowire.TooLargeError
	if errors.As(err, &tl) {
		return Event[T]{}, &FrameTooLargeError{Offset: off, Limit: d.limit}
	}
	if err != nil {
		return Event[T]{}, err
	}
	ev, err := d.typed([]byte(we.Type), obj, off, we.ObjectOffset)
	if err != nil {
		var se *jsonx.SyntaxError
		if errors.As(err, &se) {
			// An offset into the transcoded JSON means nothing in the stream.
			return Event[T]{}, &ObjectError{Offset: we.ObjectOffset, Type: EventType(we.Type), Err: err}
		}
		return Event[T]{}, err
	}
	if d.keep {
		ev.Raw = rawEvent(we.Type, obj)
	}
	return ev, nil
}

// rawEvent is the JSON event the server would have sent.
func rawEvent(typ string, obj []byte) []byte {
	return jsonx.Encode(func(w *jsonx.Writer) {
		o := w.BeginObject()
		o.String("type", typ)
		o.Raw("object", obj)
		o.End()
	})
}

func (d *Decoder[T]) protoFrame() ([]byte, int64, error) {
	frame, off, _, err := d.in.NextFrame()
	switch {
	case err == nil:
		return frame, off, nil
	case err == io.EOF:
		return nil, off, io.EOF
	case err == stream.ErrTooLarge:
		return nil, off, &FrameTooLargeError{Offset: off, Limit: d.limit}
	case err == io.ErrUnexpectedEOF:
		return nil, off, fmt.Errorf("watch stream ended inside the frame at byte %d: %w", off, io.ErrUnexpectedEOF)
	}
	return nil, off, d.readErr(err)
}
