package watch

import (
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// nextProtobuf decodes one frame of a protobuf watch: a WatchEvent whose
// object is an envelope. With a ProtobufDecodeFunc (WithProtobuf) the object
// is decoded from its protobuf message; otherwise, and for the Status of an
// ERROR event, it is transcoded to the JSON the server would have sent, and
// the event logic and the DecodeFunc are those of JSON.
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
	u := &d.unknown
	if err := u.ParseEnvelope(we.Object, we.ObjectOffset); err != nil {
		return Event[T]{}, err
	}
	if typ, ok := eventType([]byte(we.Type)); ok && typ != Error && d.decodePB != nil {
		return d.protobufObject(typ, u, off)
	}
	obj, err := d.transcode(u, off)
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

// transcode returns the JSON of the object in u, valid until the next call.
func (d *Decoder[T]) transcode(u *protowire.Unknown, off int64) ([]byte, error) {
	obj, err := d.pb.Object(u)
	var tl *protowire.TooLargeError
	if errors.As(err, &tl) {
		return nil, &FrameTooLargeError{Offset: off, Limit: d.limit}
	}
	return obj, err
}

// protobufObject decodes the object of an event of type typ, not ERROR,
// with the ProtobufDecodeFunc.
func (d *Decoder[T]) protobufObject(typ EventType, u *protowire.Unknown, off int64) (Event[T], error) {
	obj, err := d.decodePB(meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}, u.Raw)
	if err != nil {
		// A syntax error in the message, or in JSON embedded in it (a
		// FieldsV1, a RawExtension), is at an offset into the message.
		if moved, ok := stream.AtStream(err, u.RawOffset); ok {
			return Event[T]{}, moved
		}
		var tl *protowire.TooLargeError
		switch {
		case errors.As(err, &tl):
			return Event[T]{}, &FrameTooLargeError{Offset: off, Limit: d.limit}
		}
		return Event[T]{}, &ObjectError{Offset: u.RawOffset, Type: typ, Err: err}
	}
	ev := Event[T]{Type: typ, Object: obj, Offset: off}
	if d.keep {
		js, err := d.transcode(u, off)
		if err != nil {
			return Event[T]{}, err
		}
		ev.Raw = rawEvent(string(typ), js)
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
