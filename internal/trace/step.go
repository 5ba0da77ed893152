package trace

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Kind names what a Step reports. Each kind has one detail object in Step,
// named after it; docs/TRACE.md gives the schema of each.
type Kind string

// The kinds of step, in the order a run usually meets them.
const (
	KindStart    Kind = "start"    // the trace began: which server, what is watched
	KindDecision Kind = "decision" // the reflector decided something, and why
	KindRequest  Kind = "request"  // a request was sent
	KindResponse Kind = "response" // its response headers came back (or it failed)
	KindConn     Kind = "conn"     // an HTTP/2 connection was tapped
	KindFrame    Kind = "frame"    // one HTTP/2 frame, read or written
	KindRead     Kind = "read"     // one read of a response body
	KindEvent    Kind = "event"    // one watch event, as the client applies it
	KindBodyEnd  Kind = "body-end" // a response body ended
	KindPush     Kind = "push"     // the store pushed the whole pod set
	KindStop     Kind = "stop"     // the trace ended: a summary

	// The kinds that answer the questions people bring to a watch after the
	// fact, told by the analyses: is it dead or quiet, what was missed while
	// away.
	KindStall  Kind = "stall"  // an open watch has been silent past a threshold (package stall)
	KindMissed Kind = "missed" // a relist shows a change the client never saw (package gap)
)

// Step is one thing that happened, in the order the trace tells it. Exactly
// one of the detail pointers is set, the one named by Kind.
type Step struct {
	// At is the time since the trace began, on the Tracer's clock.
	At   time.Duration
	Kind Kind
	// Req numbers the request the step belongs to (1, 2, ...), 0 for none.
	Req int
	// Client names the client the step is about, in a proxy's trace (a
	// User-Agent from one remote host); empty in a trace of podwatch's own.
	Client string

	Start    *Start
	Decision *Decision
	Request  *Request
	Response *Response
	Conn     *Conn
	Frame    *Frame
	Read     *Read
	Event    *Event
	BodyEnd  *BodyEnd
	Push     *Push
	Stop     *Stop
	Stall    *Stall
	Missed   *Missed
}

// Start opens a trace.
type Start struct {
	// Server is the apiserver's base URL, never with credentials.
	Server string `json:"server"`
	// Watching says what is listed and watched, in podwatch's words.
	Watching string `json:"watching,omitempty"`
}

// Decision is one step of the reflector, with podwatch's explanation.
type Decision struct {
	// Step is the reflector's step: list, replace, watch, watch-list,
	// watch-ended, relist, fallback-list, backoff, resource-version, stopped,
	// or store-refused.
	Step            string        `json:"step"`
	ResourceVersion string        `json:"resourceVersion,omitempty"`
	Items           int           `json:"items,omitempty"`
	Wait            time.Duration `json:"-"`
	// Reason says why a relist happens, Error the failure behind a step.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Explain says what the step means on the wire and why it is taken.
	Explain string `json:"explain"`
}

// Request is a request as it was sent.
type Request struct {
	Method string `json:"method"`
	// Path and Query are the URL's, Query still encoded; the host is Start's.
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// Type is list, watch, watch-list or other.
	Type    string   `json:"type"`
	Explain string   `json:"explain"`
	Params  []Param  `json:"params"`
	Headers []Header `json:"headers,omitempty"`
}

// Values is the query the request sent, as its Params tell it (a secret
// parameter's value masked): what an analysis reads of the request.
func (r *Request) Values() url.Values {
	q := url.Values{}
	for _, p := range r.Params {
		if !p.Absent {
			q[p.Name] = append(q[p.Name], p.Value)
		}
	}
	return q
}

// Param is one query parameter and what it asks of the server here. A
// parameter that matters by being left out is listed with Absent set.
type Param struct {
	Name    string `json:"name"`
	Value   string `json:"value,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
	Explain string `json:"explain"`
}

// Header is a request header; credentials are masked.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Response is a response's headers, or the failure that left none.
type Response struct {
	Status           int      `json:"status,omitempty"`
	StatusText       string   `json:"statusText,omitempty"`
	Proto            string   `json:"proto,omitempty"`
	ContentType      string   `json:"contentType,omitempty"`
	TransferEncoding []string `json:"transferEncoding,omitempty"`
	// ContentLength is -1 when the body's length is not known in advance.
	ContentLength int64  `json:"contentLength"`
	RetryAfter    string `json:"retryAfter,omitempty"`
	// Wait is how long the headers took after the request was sent.
	Wait    time.Duration `json:"-"`
	Error   string        `json:"error,omitempty"`
	Explain string        `json:"explain"`
}

// Conn is an HTTP/2 connection the trace reads frames from.
type Conn struct {
	ID        int    `json:"id"`
	Authority string `json:"authority"`
	TLS       string `json:"tls,omitempty"`
}

// Frame is one HTTP/2 frame. Header blocks are never decoded: they carry the
// Authorization header.
type Frame struct {
	Conn int `json:"conn"`
	// Dir is "recv" (from the server) or "sent".
	Dir    string `json:"dir"`
	Type   string `json:"type"`
	Stream uint32 `json:"stream"`
	Flags  string `json:"flags,omitempty"`
	Length uint32 `json:"length"`
	Detail string `json:"detail,omitempty"`
}

// Read is one read of a response body, as the client's decoder made it.
type Read struct {
	Bytes  int   `json:"bytes"`
	Offset int64 `json:"offset"`
	// Since is the time since the previous read, or since the headers.
	Since time.Duration `json:"-"`
}

// Event is one watch event, told when the client applies it.
type Event struct {
	Type            string            `json:"type"`
	Namespace       string            `json:"namespace,omitempty"`
	Name            string            `json:"name,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Offset          int64             `json:"offset"`
	Bytes           int               `json:"bytes"`
	Annotations     map[string]string `json:"annotations,omitempty"`
	Deleting        bool              `json:"deleting,omitempty"`
	Status          *Status           `json:"status,omitempty"`
	// Initial marks the initial events of a watch list, applied together as
	// one replace at the bookmark that ends them.
	Initial bool `json:"initial,omitempty"`
	// Prefix and Envelope are a protobuf frame's: its length prefix, and
	// what the envelope around its object says. Offset and Bytes then
	// count the frame from its prefix.
	Prefix   *Prefix   `json:"prefix,omitempty"`
	Envelope *Envelope `json:"envelope,omitempty"`
	// CBOR is a CBOR watch's item: a sequence has no framing, so each
	// item's bounds (Offset, Bytes) come from its own headers.
	CBOR *CBORItem `json:"cbor,omitempty"`
	// Error is why the frame could not be read (a protobuf watch's frames
	// stay apart even when one is malformed): the client's decoder fails on
	// it too, and the step is not counted as an event.
	Error string `json:"error,omitempty"`
	// Diff is what a MODIFIED event changed against the pod's previous
	// version, when the run asked for it (--diff).
	Diff []Change `json:"diff,omitempty"`
	// DiffFrom is the resourceVersion of the version Diff is against; set
	// with --diff whenever an earlier version was seen, so that an empty
	// Diff under it means nothing changed but what the diff leaves out.
	DiffFrom string `json:"diffFrom,omitempty"`
	Explain  string `json:"explain"`
}

// CBORItem is what a trace tells of one item of a CBOR watch (a sequence
// of items, wire.CBOR's watch content type) beside its event.
type CBORItem struct {
	// Tag is the tag the item opens with: 55799, self-described CBOR, as
	// the apiserver writes every event (0: none).
	Tag uint64 `json:"tag,omitempty"`
	// Head is the item's first bytes in hex, e.g. "d9d9f7a2" (the tag, then
	// a map of two pairs: type and object).
	Head string `json:"head"`
}

// Prefix is the 4-byte big-endian length before each frame of a protobuf
// watch.
type Prefix struct {
	// Hex is the four bytes as sent, e.g. "00000a3f".
	Hex string `json:"hex"`
	// Length is what they announce: the bytes of the WatchEvent after them.
	Length uint32 `json:"length"`
}

// Envelope is what the runtime.Unknown around a protobuf object says of it:
// its type, how it is encoded (both empty from the apiserver: plain
// protobuf) and its size. A list's envelope also counts its items.
type Envelope struct {
	APIVersion      string `json:"apiVersion"`
	Kind            string `json:"kind"`
	ContentEncoding string `json:"contentEncoding"`
	ContentType     string `json:"contentType"`
	// ObjectBytes is the size of the object's own message.
	ObjectBytes int  `json:"objectBytes"`
	Items       *int `json:"items,omitempty"`
}

// Status is the gist of a Kubernetes Status: an ERROR event's object or a
// failed request's body.
type Status struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// BodyEnd is how a response body ended.
type BodyEnd struct {
	// How is "eof" (the server ended it), "closed" (the client closed it,
	// or ended the request's context, first), "error-event" (a watch's ERROR
	// event, after which nothing more is read) or "error" (a read failed).
	How      string        `json:"how"`
	Error    string        `json:"error,omitempty"`
	Bytes    int64         `json:"bytes"`
	Reads    int           `json:"reads"`
	Duration time.Duration `json:"-"`
	Status   *Status       `json:"status,omitempty"`
	// Envelope is a protobuf list's, read once its whole body came.
	Envelope *Envelope `json:"envelope,omitempty"`
	Explain  string    `json:"explain"`
}

// Push is one push of the undelta store: the whole current pod set.
type Push struct {
	Count           int      `json:"count"`
	ResourceVersion string   `json:"resourceVersion,omitempty"`
	Added           []string `json:"added,omitempty"`
	Updated         []string `json:"updated,omitempty"`
	Removed         []string `json:"removed,omitempty"`
}

// Stop closes a trace with counts of what it told.
type Stop struct {
	Requests int `json:"requests"`
	Events   int `json:"events"`
	Pushes   int `json:"pushes"`
	Relists  int `json:"relists"`
	Backoffs int `json:"backoffs"`
	// WatchBytes is what the 2xx watch bodies held on the wire, and
	// BytesPerEvent that over Events: the same watch costs different bytes
	// per event in JSON and in protobuf.
	WatchBytes    int64   `json:"watchBytes"`
	BytesPerEvent float64 `json:"bytesPerEvent"`
	// Stalls counts the stall steps told, Missed the missed ones.
	Stalls   int           `json:"stalls,omitempty"`
	Missed   int           `json:"missed,omitempty"`
	Duration time.Duration `json:"-"`

	// MissedHow counts the missed steps by their How (deleted, skipped,
	// unseen): the run's gap totals.
	MissedHow map[string]int `json:"missedHow,omitempty"`
}

// Stall is an open watch's silence, told once it passes the threshold the
// run set (package stall), and again each time its verdict grows
// graver. The silence began at the step's At less SinceByte, and ends with
// the next read or body-end of the same request; a silence after that is
// told anew.
type Stall struct {
	// SinceByte, SinceEvent and SinceBookmark are the age of the watch's
	// last body byte, last event and last BOOKMARK; an age is measured from
	// the response headers when nothing has come yet.
	SinceByte     time.Duration `json:"-"`
	SinceEvent    time.Duration `json:"-"`
	SinceBookmark time.Duration `json:"-"`
	// Bookmarks is whether the watch asked for bookmarks, Timeout the
	// timeoutSeconds it sent (0: none).
	Bookmarks bool          `json:"allowWatchBookmarks"`
	Timeout   time.Duration `json:"-"`
	// Verdict is "quiet" (silence the protocol allows), "overdue" (a
	// bookmark or the timeout's end should have come by now) or "dead".
	Verdict string `json:"verdict"`
	Explain string `json:"explain"`
}

// The verdicts of a stall (Stall.Verdict), mildest first.
const (
	VerdictQuiet   = "quiet"
	VerdictOverdue = "overdue"
	VerdictDead    = "dead"
)

// Missed is one change a client did not see as an event, found by comparing
// what a relist or a resumed watch shows with what the client held.
type Missed struct {
	// How is "deleted" (the pod is gone, its DELETED never seen), "skipped"
	// (its resourceVersion jumped past changes never seen) or "unseen"
	// (added and gone again while away, known only to a recording or model).
	How       string `json:"how"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// From is the last resourceVersion the client saw of the pod, To the
	// first it sees after the gap (empty when it is gone). For an unseen
	// pod they are its first and last change the ledger knows.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// State is the resourceVersion of the state that shows the gap: the
	// relist's list or watch list. A deleted pod was gone by then.
	State   string `json:"state,omitempty"`
	Explain string `json:"explain"`
}

// The ways a change can be missed (Missed.How).
const (
	MissedDeleted = "deleted"
	MissedSkipped = "skipped"
	MissedUnseen  = "unseen"
)

// Change is one field that a MODIFIED event changed, in the manner of a JSON
// patch operation: Op is "add", "remove" or "replace", Path a JSON pointer.
type Change struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  json.RawMessage `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// millis is a duration in JSON: milliseconds with three decimals.
type millis time.Duration

func (d millis) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(d)/float64(time.Millisecond), 'f', 3, 64), nil
}

// MarshalJSON writes the step as one object: at_ms, kind, req and the detail
// object under the kind's name. Durations inside details are written as
// *_ms members.
func (s Step) MarshalJSON() ([]byte, error) {
	out := struct {
		At   millis `json:"at_ms"`
		Kind Kind   `json:"kind"`
		Req  int    `json:"req,omitempty"`
		// Client is a proxy's client.
		Client string `json:"client,omitempty"`

		Start    *Start   `json:"start,omitempty"`
		Decision any      `json:"decision,omitempty"`
		Request  *Request `json:"request,omitempty"`
		Response any      `json:"response,omitempty"`
		Conn     *Conn    `json:"conn,omitempty"`
		Frame    *Frame   `json:"frame,omitempty"`
		Read     any      `json:"read,omitempty"`
		Event    *Event   `json:"event,omitempty"`
		BodyEnd  any      `json:"body-end,omitempty"`
		Push     *Push    `json:"push,omitempty"`
		Stop     any      `json:"stop,omitempty"`
		Stall    any      `json:"stall,omitempty"`
		Missed   *Missed  `json:"missed,omitempty"`
	}{At: millis(s.At), Kind: s.Kind, Req: s.Req, Client: s.Client, Start: s.Start, Request: s.Request,
		Conn: s.Conn, Frame: s.Frame, Event: s.Event, Push: s.Push, Missed: s.Missed}
	// Each detail with a duration gets it added as milliseconds; a nil
	// pointer must stay a nil interface for omitempty to drop it.
	if d := s.Decision; d != nil {
		out.Decision = struct {
			*Decision
			Wait *millis `json:"wait_ms,omitempty"`
		}{d, optMillis(d.Wait)}
	}
	if r := s.Response; r != nil {
		out.Response = struct {
			*Response
			Wait millis `json:"wait_ms"`
		}{r, millis(r.Wait)}
	}
	if r := s.Read; r != nil {
		out.Read = struct {
			*Read
			Since millis `json:"since_ms"`
		}{r, millis(r.Since)}
	}
	if e := s.BodyEnd; e != nil {
		out.BodyEnd = struct {
			*BodyEnd
			Duration millis `json:"duration_ms"`
		}{e, millis(e.Duration)}
	}
	if st := s.Stop; st != nil {
		out.Stop = struct {
			*Stop
			Duration millis `json:"duration_ms"`
		}{st, millis(st.Duration)}
	}
	if st := s.Stall; st != nil {
		out.Stall = struct {
			*Stall
			SinceByte     millis  `json:"sinceByte_ms"`
			SinceEvent    millis  `json:"sinceEvent_ms"`
			SinceBookmark millis  `json:"sinceBookmark_ms"`
			Timeout       *millis `json:"timeout_ms,omitempty"`
		}{st, millis(st.SinceByte), millis(st.SinceEvent), millis(st.SinceBookmark), optMillis(st.Timeout)}
	}
	// Not HTML-escaped: "<masked>" reads better than "\u003cmasked\u003e".
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func optMillis(d time.Duration) *millis {
	if d == 0 {
		return nil
	}
	m := millis(d)
	return &m
}
