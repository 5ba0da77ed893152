// Package trace records what podwatch does on the wire and why, as an
// ordered stream of steps, and hands them to its consumers: each request
// with every query parameter explained in context, each response, each read
// of a body, each watch event as it is applied, the reflector's decisions
// with their reasons, and each push of the pod set with what changed since
// the last.
//
// It holds the step schema (Step and its details), the Tracer that orders
// the steps, the Instrument that feeds it, and the JSON sink. Everything
// else reads the steps and lives in a package of its own: text (the trace
// for people), page (one HTML page with a timeline), h2tap (HTTP/2 frames),
// and the analyses stall (silent watches), gap (changes a client missed),
// versions (what each MODIFIED event changed) and clients (what a proxy's
// clients' requests reveal).
//
// # Steps
//
// Each step is of one kind, with one detail object named after it:
//
//   - start: the trace began: which server, what is watched
//   - decision: the reflector decided something, and why (or, in a proxy's
//     trace, what a client's requests show it decided)
//   - request: a request was sent
//   - response: its response headers came back, or it failed
//   - conn: an HTTP/2 connection was tapped
//   - frame: one HTTP/2 frame, read or written
//   - read: one read of a response body
//   - event: one watch event, as the client applies it
//   - body-end: a response body ended
//   - push: the store pushed the whole pod set
//   - stop: the trace ended: a summary
//   - stall: an open watch has been silent past a threshold
//   - missed: a relist shows a change the client never saw
//
// # Recording
//
// A Tracer is fed through one Instrument: Configure puts a RoundTripper
// layer into a rest.Config (and the Tracer's ConnTap, when it has one, as
// the connection hook); Observe is the reflector's Observe hook; WrapStore
// wraps the reflector's store; Pushed is told of the undelta store's
// pushes. A ConnTap and the analyses record steps of their own through
// Tell and Judge.
//
// Every step is recorded on one path. It goes first to the analyses
// (Options.Analyses), in the order things happen and with what they need
// of it that the step does not carry (Record: a read's bytes, an event's
// object, a replace's store content); they may fill in its details or tell
// steps of their own around it. Then it is ordered (see Tracer) and handed
// to each Sink: JSON here, text.New and page.New beside it.
//
// A proxy's trace is not a mode: requests that WithClient marks as
// another client's name it on their steps, and their watches are told as
// they come, since the reflector that reads them is the client's. The
// analyses a proxy adds (clients, then versions and gap) read those steps
// like any other.
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
// when the step belongs to none), client the proxied client the step is
// about (absent in podwatch's own trace), and the member named after the
// kind holds its details. docs/TRACE.md lists every member of each; the
// Step types here are the same schema in Go (durations become *_ms
// members).
package trace
