// Package trace narrates what podwatch does on the wire and why: each
// request with every query parameter explained in context, each response,
// each read of a body, HTTP/2 frames, each watch event as it is applied, the
// reflector's decisions with their reasons, and each push of the pod set
// with what changed since the last.
//
// A Tracer is fed through one Instrument: Configure puts a RoundTripper layer
// and an HTTP/2 tap (above TLS, reading frames with golang.org/x/net/http2's
// Framer) into a rest.Config; Observe is the reflector's Observe hook;
// WrapStore wraps the reflector's store; Pushed is told of the undelta
// store's pushes.
// It orders what it hears as the client acts on it (see Tracer) and hands
// each Step to its sinks: Text (for people; coloured on a terminal), JSON
// (one object per line, for tools) and HTML (one self-contained page with a
// timeline that pans and zooms, written when the Tracer is closed).
//
// Credentials never reach a step: of an Authorization header only its scheme
// is kept, cookies are masked, HTTP/2 header blocks are never decoded, and
// query parameters that could carry a token are masked.
//
// # JSON schema
//
// Each line is one object:
//
//	{"at_ms": 12.345, "kind": KIND, "req": N, KIND: {...}}
//
// at_ms is the time since the trace began, req the request number (absent
// when the step belongs to none), and the member named after the kind holds
// its details: start, decision, request, response, conn, frame, read, event,
// body-end, push or stop. docs/TRACE.md lists every member of each; the Step
// types here are the same schema in Go (durations become *_ms members).
package trace
