package wire

import (
	"errors"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// Object is one object as a body holds it, before it is decoded: its JSON,
// or its protobuf message. The bytes are the body's, valid until the reader
// that returned them reads on.
type Object struct {
	// Data is the object's JSON, or, when IsProtobuf, its protobuf message
	// (what its envelope wraps, or a list item's message).
	Data []byte
	// Offset is where Data starts in the stream. For JSON transcoded from
	// CBOR, it is where the CBOR item started.
	Offset int64
	// TypeMeta is what the object's envelope named, in protobuf (a list's
	// items carry none, as in JSON).
	TypeMeta meta.TypeMeta

	// transcoded marks JSON written from another format: offsets into it
	// are not the stream's.
	transcoded bool
	isProto    bool
	// schema is a protobuf message's, when known without a kind (a list's
	// items); else the envelope's kind names it.
	schema      protowire.Message
	schemaKnown bool
}

// IsProtobuf reports whether Data is a protobuf message rather than JSON.
func (o Object) IsProtobuf() bool { return o.isProto }

// Transcoder writes objects as the JSON the apiserver would have sent for
// them. What a call returns is in the Transcoder's buffer until its next
// call. The zero value works.
type Transcoder struct {
	// Limit bounds the JSON of one object; 0 means protowire.DefaultLimit.
	Limit int
	pb    protowire.Transcoder
}

// JSON returns o's JSON: Data itself, or its protobuf message transcoded.
// A protobuf object whose JSON would pass Limit is a
// *protowire.TooLargeError; a malformed message a *protowire.SyntaxError at
// its stream offset; one of a kind the schema does not hold a
// *protowire.KindError.
func (t *Transcoder) JSON(o Object) ([]byte, error) {
	if !o.isProto {
		return o.Data, nil
	}
	t.pb.Limit = t.Limit
	if o.schemaKnown {
		return t.pb.Message(o.schema, o.Data, o.Offset)
	}
	// An envelope's object: its kind and apiVersion, as JSON writes them,
	// come from the envelope.
	u := protowire.Unknown{APIVersion: o.TypeMeta.APIVersion, Kind: o.TypeMeta.Kind, Raw: o.Data, RawOffset: o.Offset}
	return t.pb.Object(&u)
}

// Decode decodes o with c: from its protobuf message when it is one and c
// has a Protobuf decoder, else from its JSON, a protobuf message transcoded
// by t first.
//
// located reports that err is a syntax error already at its stream offset:
// c's error in bytes that came from the stream as they are, moved there. Any
// other error is c's own (or t's), for the caller to place on o: a syntax
// error in JSON that t or the CBOR reader wrote has offsets into that JSON,
// which mean nothing in the stream.
func Decode[T any](t *Transcoder, o Object, c meta.Codec[T]) (v T, located bool, err error) {
	if o.isProto && c.Protobuf != nil {
		v, err = c.Protobuf(o.TypeMeta, o.Data)
		return v, moveSyntax(&err, o.Offset), err
	}
	js, err := t.JSON(o)
	if err != nil {
		var tl *protowire.TooLargeError
		var ke *protowire.KindError
		// The transcoder's syntax errors are at stream offsets already.
		return v, !errors.As(err, &tl) && !errors.As(err, &ke), err
	}
	v, err = c.JSON(js)
	if err != nil && !o.isProto && !o.transcoded {
		return v, moveSyntax(&err, o.Offset), err
	}
	return v, false, err
}

// moveSyntax moves a syntax error in *err, found in bytes that start at
// stream offset base, to the stream, and says whether there was one.
func moveSyntax(err *error, base int64) bool {
	if *err == nil {
		return false
	}
	moved, ok := stream.AtStream(*err, base)
	if ok {
		*err = moved
	}
	return ok
}

// JSONObject is the object whose JSON, data, starts at stream offset off.
func JSONObject(data []byte, off int64) Object { return Object{Data: data, Offset: off} }

// ProtobufObject is the object whose protobuf message of schema m, data,
// starts at stream offset off: a list's item, say.
func ProtobufObject(m protowire.Message, data []byte, off int64) Object {
	return Object{Data: data, Offset: off, isProto: true, schema: m, schemaKnown: true}
}

// TranscodedObject is the object whose JSON, js, was written from an object
// in another format that starts at stream offset off (a CBOR item).
func TranscodedObject(js []byte, off int64) Object {
	return Object{Data: js, Offset: off, transcoded: true}
}

// ObjectJSON is the JSON the apiserver would have sent for body, one object
// (a Status, say, or a list) answered whole in f, in a new slice or body
// itself. A body the format's reader refuses is its syntax error (a
// *protowire.MagicError for protobuf without the envelope's magic).
func (f Format) ObjectJSON(body []byte) ([]byte, error) {
	switch f {
	case Protobuf:
		u, err := protowire.ParseEnvelope(body, 0)
		if err != nil {
			return nil, err
		}
		var t protowire.Transcoder
		return t.Object(u)
	case CBOR:
		var t cborwire.Transcoder
		return t.JSON(body, 0)
	}
	return body, nil
}

// SyntaxError is f's syntax error at stream offset off: a
// *jsonx.SyntaxError, *protowire.SyntaxError or *cborwire.SyntaxError, for a
// reader that finds a body of f malformed beyond what the codec checks (an
// event of an unknown type, say).
func (f Format) SyntaxError(off int64, msg string) error {
	switch f {
	case Protobuf:
		return &protowire.SyntaxError{Offset: off, Msg: msg}
	case CBOR:
		return &cborwire.SyntaxError{Offset: off, Msg: msg}
	}
	return &jsonx.SyntaxError{Offset: off, Msg: msg}
}
