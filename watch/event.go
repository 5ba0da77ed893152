package watch

// EventType is the kind of change a watch event reports.
type EventType string

// The event types the apiserver sends.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	// Bookmark events carry only metadata.resourceVersion (and maybe annotations
	// such as k8s.io/initial-events-end); they move the resourceVersion forward.
	Bookmark EventType = "BOOKMARK"
	// Error events carry a Status; the server ends the watch after one.
	Error EventType = "ERROR"
)

// Event is one decoded watch event.
type Event[T any] struct {
	Type EventType
	// Object is the decoded object of an ADDED, MODIFIED, DELETED or BOOKMARK
	// event; the zero T for ERROR.
	Object T
	// Err is set on ERROR events, to a *rest.StatusError built from the event's
	// Status, and on the final event a StreamWatcher sends when the stream failed.
	Err error
	// Raw is the event as JSON, set only with DecoderOptions.KeepRaw: from a
	// JSON stream, exactly the bytes the server sent, without the newline after
	// them; from a protobuf or CBOR stream, the JSON the server would have sent
	// for the event (its own bytes are not kept). It is the caller's to keep.
	Raw []byte
	// Offset is the position of the event's first byte in the stream.
	Offset int64
}

// Interface is a running watch.
//
// ResultChan delivers events until the watch ends, then is closed. Stop ends the
// watch, releases what it holds and returns once it has; it may be called more
// than once and from any goroutine. Events not yet received when Stop is called
// may be dropped.
type Interface[T any] interface {
	ResultChan() <-chan Event[T]
	Stop()
}
