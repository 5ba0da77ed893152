package stream

import "errors"

// shifter is a wire format's syntax error (jsonx, protowire and cborwire
// each have one): it can be moved to a stream offset.
type shifter interface {
	Shift(bytes int64) error
}

// AtStream places a syntax error found in err, whatever its format, at the
// stream offset base of the value it was found in: decoders of one object
// report offsets into the bytes they were given, and a reader of a stream
// reports them from the stream's first byte. ok is false when err holds no
// syntax error.
func AtStream(err error, base int64) (moved error, ok bool) {
	var s shifter
	if errors.As(err, &s) {
		return s.Shift(base), true
	}
	return nil, false
}
