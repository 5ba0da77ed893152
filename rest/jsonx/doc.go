// Package jsonx is the JSON reader and writer podwatch's object codecs are
// written with, and the one a decoder of another kind is written with outside
// podwatch: api.Pod and meta.ObjectMeta use nothing else.
//
// A Reader pulls values from a byte slice: Object and Array call back for each
// member or element, String, Int64, Bool and the Read helpers read scalars, and
// Skip and Raw pass over a value, checking it, without allocating. The first
// error stops the Reader; Err then returns a *SyntaxError with the byte offset
// (plus Base, for input cut from a stream).
//
// SyntaxError is the one syntax error of podwatch's public API: rest.DecodeList,
// the watch Decoder and api.DecodePod all report malformed JSON as a
// *SyntaxError whose Offset is a byte offset of the input they were given (of
// the stream, for the list and watch decoders). A DecodeFunc that reports its
// own malformed input as a *SyntaxError has it moved to the stream's offsets by
// the list and watch decoders.
//
// Strings and member names are decoded as encoding/json decodes them:
// escapes resolved, and a lone surrogate escape and each byte that is not part
// of valid UTF-8 read as U+FFFD. protowire's Reader and the CBOR transcoding
// decode alike, so a string read does not depend on the format it came in.
// What a Reader passes over rather than decodes (Raw, and so Extra's values)
// is the input's bytes, invalid UTF-8 included, written back as it came.
//
// Extra keeps the members of an object that a type does not model, verbatim,
// and writes them back, so decoding and encoding again loses nothing; Objects
// does the same for an array of objects kept member by member. Kept values are
// copies, safe to hold after the input is reused, read-only, and may be shared
// with equal values kept by other objects (Share).
//
// An Extra may also hold runs of members kept in another format (an
// Encoding, such as protobuf's: see rest/protowire's Model), written as JSON
// members by the same ObjectWriter.Extra call, so a type has one WriteJSON
// whichever format it was decoded from.
//
// A Writer encodes into a buffer it reuses: WriteJSON methods take one, an
// ObjectWriter writes an object's members with the API's omitempty rules, and
// Encode runs a WriteJSON method for MarshalJSON. Writing an object allocates
// nothing once the Writer's buffer has grown.
//
// AppendQuote is podwatch's one JSON string escaper: the Writer, the protobuf
// and CBOR transcoders and podwatch's servers write every string with it,
// byte for byte as encoding/json (and so the apiserver) writes it: <, > and &
// escaped, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
//
// The package promises its exported API, not its encoding engine: output is
// compact JSON with members in the order written, and nothing of the engine
// shows through.
package jsonx
