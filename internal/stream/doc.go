// Package stream is podwatch's one buffered reader: every decoder that cuts
// values out of a response body (the list decoder, the watch decoder, the
// fixture's views) reads through it.
//
// A Reader keeps the unread bytes of a stream in a buffer it grows up to a
// limit, knows the stream offset of every byte, and reads only when its caller
// asks for more: a decoder built on it never waits for bytes it does not need.
//
// It knows no wire format. Next frames a value with a Framer, an interface
// declared here and implemented beside each codec (rest/jsonx, rest/protowire,
// rest/cborwire), so that this package and its subpackages import no other
// package of podwatch's (make lint holds it to that).
package stream
