package apiwire

import "github.com/podwatch/podwatch/rest/jsonx"

// Watch event types, as the apiserver spells them.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// InitialEventsEnd is the annotation on the bookmark that ends a watch list's
// initial events.
const InitialEventsEnd = "k8s.io/initial-events-end"

// Event is one watch event line: {"type":T,"object":OBJ} and a newline, as the
// apiserver writes each event of a JSON watch. obj must be a JSON object.
func Event(typ string, obj []byte) []byte {
	return AppendEvent(make([]byte, 0, len(obj)+len(typ)+24), typ, obj)
}

// AppendEvent appends the event line Event makes to dst, for servers that
// reuse one buffer for every event of a stream.
func AppendEvent(dst []byte, typ string, obj []byte) []byte {
	return append(append(AppendEventHead(dst, typ), obj...), EventTail...)
}

// AppendEventHead appends what comes before an event's object, for a server
// that writes the object into the same buffer next and then EventTail.
func AppendEventHead(dst []byte, typ string) []byte {
	dst = jsonx.AppendQuote(append(dst, `{"type":`...), typ)
	return append(dst, `,"object":`...)
}

// EventTail closes the event line AppendEventHead opened.
const EventTail = "}\n"

// ErrorEvent is the ERROR event carrying st; the apiserver ends the watch
// after it.
func ErrorEvent(st Status) []byte { return Event(Error, st.JSON()) }

// PodBookmark is the object of a pod watch's BOOKMARK at rv: only its
// resourceVersion (and, when initialEnd, the annotation that ends a watch
// list's initial events), with the empty spec and status the apiserver
// writes beside it.
func PodBookmark(rv string, initialEnd bool) []byte {
	b := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":`)
	b = jsonx.AppendQuote(b, rv)
	if initialEnd {
		b = append(b, `,"annotations":{"`+InitialEventsEnd+`":"true"}`...)
	}
	return append(b, `},"spec":{"containers":null},"status":{}}`...)
}
