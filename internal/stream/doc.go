// Package stream is podwatch's one buffered reader and one JSON framer: every
// decoder that cuts values out of a response body (the list decoder, the watch
// decoder, the trace's event splitter) builds on them.
//
// A Reader keeps the unread bytes of a stream in a buffer it grows up to a
// limit, knows the stream offset of every byte, and reads only when its caller
// asks for more: a decoder built on it never waits for bytes it does not need.
// It knows nothing of JSON, so length-prefixed and self-delimiting formats can
// frame on it too (Ensure, Buffered, Take): NextFrame frames a protobuf watch,
// and FrameEnd, the framing it uses, serves a caller handed the bytes as they
// come (the trace).
//
// A JSONFramer finds where one JSON value ends in bytes that arrive piecemeal,
// scanning each byte once however the stream is cut. It follows what finding
// the end needs (strings and their escapes, brackets, a bound on nesting) and
// leaves checking the value to its decoder.
package stream
