package wire

import (
	"errors"
	"fmt"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
)

// Event is one watch event as its frame holds it: its type as sent (not
// yet checked against the known ones) and its object, both valid until the
// Events that read it reads on.
type Event struct {
	Type   []byte
	Object Object
	// Envelope is what the protobuf envelope around the object says of it;
	// nil in the other formats.
	Envelope *protowire.Unknown

	json []byte // the event's JSON, for a JSON or CBOR body
}

// Events frames the events of one watch body in its format and reads each:
// a JSON object per event, a length-prefixed WatchEvent message, or a CBOR
// item. It is the body's framer (Space, Reset, Scan) and its event
// reader (Read); the two share state, so one Events serves one body, and it
// is not safe for concurrent use.
type Events struct {
	format Format
	limit  int

	json  jsonx.Framer
	proto protowire.Framer
	cbor  cborwire.Framer

	envelope jsonEnvelope
	unknown  protowire.Unknown
	cb       cborwire.Transcoder
	// Transcoder writes a protobuf object's JSON when asked (Decode, JSON).
	Transcoder Transcoder
}

// Events returns the framer and reader of a watch body in f whose events
// are at most limit bytes each (the JSON written for a protobuf or CBOR
// event is bounded alike).
func (f Format) Events(limit int) *Events {
	e := &Events{format: f, limit: limit}
	e.cb.Limit, e.Transcoder.Limit = limit, limit
	return e
}

// Format is the format e reads.
func (e *Events) Format() Format { return e.format }

// Space returns how many of v's leading bytes come between events: JSON's
// whitespace.
func (e *Events) Space(v []byte) int {
	if e.format == JSON {
		return e.json.Space(v)
	}
	return 0
}

// Reset readies e to frame a new event.
func (e *Events) Reset() {
	switch e.format {
	case Protobuf:
		e.proto.Reset()
	case CBOR:
		e.cbor.Reset()
	default:
		e.json.Reset()
	}
}

// Scan frames the event that starts at v[0], as a codec's framer does. A JSON
// event must be an object: any other value is a *jsonx.SyntaxError at once.
func (e *Events) Scan(v []byte, limit int) (int, error) {
	switch e.format {
	case Protobuf:
		return e.proto.Scan(v, limit)
	case CBOR:
		return e.cbor.Scan(v, limit)
	}
	if !e.jsonStarted(v) {
		return -1, &jsonx.SyntaxError{Msg: fmt.Sprintf("found %q, want '{' starting an event", v[0])}
	}
	return e.json.Scan(v, limit)
}

func (e *Events) jsonStarted(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// FrameLength is what the length prefix of the protobuf frame last scanned
// announced: how long a frame too large or cut short was to be.
func (e *Events) FrameLength() uint32 { return e.proto.Length() }

// Read reads the event frame, at stream offset off, which Scan has just
// framed. A malformed event is the format's syntax error at its stream
// offset (a *protowire.MagicError for a protobuf object without the
// envelope's magic); a protobuf or CBOR event whose JSON would pass the
// limit is a *protowire.TooLargeError or *cborwire.TooLargeError.
func (e *Events) Read(frame []byte, off int64) (Event, error) {
	switch e.format {
	case Protobuf:
		return e.readProtobuf(frame, off)
	case CBOR:
		return e.readCBOR(frame, off)
	}
	inner, innerEnd := e.json.Inner()
	ev, err := e.envelope.read(frame, off, inner, innerEnd)
	ev.json = frame
	return ev, err
}

func (e *Events) readProtobuf(frame []byte, off int64) (Event, error) {
	body := off + protowire.FrameHeader
	we, err := protowire.ParseWatchEvent(frame[protowire.FrameHeader:], body)
	switch {
	case err != nil:
		return Event{}, err
	case we.Type == "":
		return Event{}, &protowire.SyntaxError{Offset: body, Msg: "watch event has no type"}
	case !we.HasObject:
		return Event{}, &protowire.SyntaxError{Offset: body, Msg: "watch event has no object"}
	}
	u := &e.unknown
	if err := u.ParseEnvelope(we.Object, we.ObjectOffset); err != nil {
		return Event{}, err
	}
	obj := Object{Data: u.Raw, Offset: u.RawOffset, isProto: true}
	obj.TypeMeta.Kind, obj.TypeMeta.APIVersion = u.Kind, u.APIVersion
	return Event{Type: []byte(we.Type), Object: obj, Envelope: u}, nil
}

// readCBOR transcodes the item to the JSON event the server would have sent
// and reads that. Offsets into that JSON mean nothing in the stream, so a
// malformed event is a *cborwire.SyntaxError at the item's offset.
func (e *Events) readCBOR(item []byte, off int64) (Event, error) {
	js, err := e.cb.JSON(item, off)
	if err != nil {
		return Event{}, err
	}
	if len(js) == 0 || js[0] != '{' {
		return Event{}, &cborwire.SyntaxError{Offset: off, Msg: "watch event is not a map"}
	}
	// The transcoder wrote one whole value; where its object lies is found
	// as the envelope is read.
	ev, err := e.envelope.read(js, 0, -1, -1)
	var se *jsonx.SyntaxError
	if errors.As(err, &se) {
		return Event{}, &cborwire.SyntaxError{Offset: off, Msg: fmt.Sprintf("event item's JSON, at byte %d of it: %s", se.Offset, se.Msg)}
	}
	if err != nil {
		return Event{}, err
	}
	ev.Object.Offset, ev.Object.transcoded = off, true
	ev.json = js
	return ev, nil
}

// JSON is the JSON event the server would have sent for ev, in a new slice:
// a JSON body's frame, a CBOR item's transcoding, a protobuf event written
// from its type and its object's JSON.
func (e *Events) JSON(ev Event) ([]byte, error) {
	if ev.json != nil {
		return append([]byte(nil), ev.json...), nil
	}
	obj, err := e.Transcoder.JSON(ev.Object)
	if err != nil {
		return nil, err
	}
	return jsonx.Encode(func(w *jsonx.Writer) {
		o := w.BeginObject()
		o.String("type", string(ev.Type))
		o.Raw("object", obj)
		o.End()
	}), nil
}

var _ stream.Framer = (*Events)(nil)
