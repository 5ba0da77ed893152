// Package watch turns the body of an apiserver watch into typed events.
//
// A watch answer is a chunked application/json body holding one JSON object per
// event, {"type":"ADDED","object":{...}}, normally each followed by a newline. Reads
// of the body fall anywhere: one read may end inside an event or hold several.
//
// A Decoder pulls one event per call on the caller's goroutine. It buffers what it
// has read, but it never asks its reader for more once a whole event is buffered, so
// an event is delivered as soon as its closing brace arrives even when the server
// sends nothing after it for minutes. Frames are bounded by DecoderOptions.MaxFrameSize,
// and bad input ends decoding with a typed error naming the byte offset in the stream:
// *jsonx.SyntaxError (malformed JSON, or JSON that is not a watch event),
// *FrameTooLargeError, *UnknownEventTypeError or *ObjectError; a stream that stops
// between events gives io.EOF, one that stops inside an event an error wrapping
// io.ErrUnexpectedEOF.
//
// DecoderOptions.Format names the body's wire format (see package rest/wire);
// the Decoder asks the format for its framer and its event reader, and keeps
// no logic of its own per format. In protobuf the body is a sequence of frames,
// each a 4-byte big-endian length and a WatchEvent message; a Decoder reads one
// frame per event (refusing a length over the bound before reading any of it).
// With a codec that decodes protobuf (meta.Codec's Protobuf; api.Codec for pods)
// the object is decoded from its protobuf message; without one it is transcoded
// to the JSON the server would have sent (package rest/protowire) and handed to
// the codec's JSON decoder. In CBOR the body is a sequence of self-described
// items with no framing between them; the Decoder finds each item's end from its
// headers, on the same buffered reader and bound, and transcodes it to the JSON
// event the server would have sent (package rest/cborwire). Either way the event
// logic is JSON's, so events mean the same in every format.
//
// A StreamWatcher runs a Decoder on a goroutine of its own and delivers the events on
// a channel (Interface). A server ERROR event arrives as an Event of type Error whose
// Err is a *rest.StatusError; a failed stream ends with one such Event whose Err wraps
// what went wrong; a clean end just closes the channel. Stop closes the body and
// waits for the goroutine.
package watch
