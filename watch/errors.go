package watch

import "fmt"

// FrameTooLargeError is an event, starting at Offset, longer than Limit bytes.
type FrameTooLargeError struct {
	Offset int64
	Limit  int
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("watch event at byte %d is longer than the %d-byte limit", e.Offset, e.Limit)
}

// UnknownEventTypeError is an event, starting at Offset, whose type is none of
// the five the apiserver sends. It is an error rather than skipped: a client that
// ignored a change it does not understand would drift from the server.
type UnknownEventTypeError struct {
	Offset int64
	Type   string
}

func (e *UnknownEventTypeError) Error() string {
	return fmt.Sprintf("watch event at byte %d has unknown type %q", e.Offset, e.Type)
}

// ObjectError is a failure of the DecodeFunc (or of the Status decoder, for
// ERROR events) on well-framed JSON: the object at Offset is not a T. Malformed
// JSON that the DecodeFunc reports as a *jsonx.SyntaxError is returned as one
// instead, with its offset moved from the object into the stream.
type ObjectError struct {
	Offset int64
	Type   EventType
	Err    error
}

func (e *ObjectError) Error() string {
	return fmt.Sprintf("decode %s object at byte %d: %v", e.Type, e.Offset, e.Err)
}

func (e *ObjectError) Unwrap() error { return e.Err }
