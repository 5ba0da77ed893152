package trace

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sort"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/mask"
	"github.com/podwatch/podwatch/rest/wire"
)

// statusBodyLimit bounds what is kept of a failed request's body, to show its
// Status.
const statusBodyLimit = 64 << 10

// listBodyLimit bounds the protobuf list body kept to show its envelope;
// past it the envelope is not shown.
const listBodyLimit = maxEventBytes

// reqState is one traced request, from its sending to the end of its body.
type reqState struct {
	n     int
	typ   string
	sent  time.Time
	last  time.Time // of the headers or the last read
	bytes int64
	reads int
	ended bool
	// closing is set once the client starts closing the body: a read failing
	// then fails because of the close.
	closing bool

	// client is a proxied request's (WithClient).
	client string

	// req is the request as it was told, for the analyses' records.
	req     *Request
	held    bool // a watch's steps wait for the reflector
	pending []Step
	initial bool // a watch list whose initial events are not yet applied

	events    *framer // a 2xx watch's event stream
	lastEvent string  // the type of the last event in it
	status    []byte  // a failed request's body, for its Status
	// format is the body's wire format; list holds a 2xx protobuf body
	// that is not a watch, up to listBodyLimit, to show its
	// envelope once it has all come.
	format wire.Format
	list   []byte
}

// transport wraps next so that every request, its response and each read of
// its body are traced. It must sit where it sees requests as they are sent
// (beneath any layer that adds credentials): it masks them. Bodies it hands
// back must be closed as usual; closing one is traced too.
func (t *Tracer) transport(next http.RoundTripper) http.RoundTripper {
	return roundTripper{t: t, next: next}
}

type roundTripper struct {
	t    *Tracer
	next http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	t := rt.t
	r := t.sent(req)
	done := func() {}
	if t.tap != nil {
		var hooks *httptrace.ClientTrace
		hooks, done = t.tap.Request(r.n)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), hooks))
	}
	resp, err := rt.next.RoundTrip(req)
	done()
	t.answered(r, resp, err)
	// An upgraded connection's body is the connection itself (kubectl exec
	// through a proxy): whoever upgraded must get it as it is, writable.
	if err == nil && resp.Body != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body = &body{rc: resp.Body, t: t, r: r}
	}
	return resp, err
}

// sent tells a request; the reflector is done with any earlier watch.
func (t *Tracer) sent(req *http.Request) *reqState {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.moveOnLocked()
	t.nextReq++
	q := req.URL.Query()
	r := &reqState{n: t.nextReq, typ: requestType(req.URL.Path, q), sent: t.clock()}
	if r.client = clientOf(req.Context()); r.client != "" {
		t.clients[r.n] = r.client
		delete(t.clients, r.n-maxClientReqs)
	}
	r.req = &Request{
		Method:  req.Method,
		Path:    req.URL.Path,
		Query:   mask.Query(req.URL.RawQuery),
		Type:    r.typ,
		Explain: explainRequest(r.typ, asksProtobuf(req.Header)),
		Params:  explainParams(r.typ, q),
		Headers: shownHeaders(req.Header),
	}
	t.recordLocked(r, Record{Step: &Step{Kind: KindRequest, Req: r.n, Request: r.req}, Now: r.sent})
	return r
}

func requestType(path string, q map[string][]string) string {
	watch := len(q["watch"]) > 0 && (q["watch"][0] == "true" || q["watch"][0] == "1")
	watch = watch || strings.Contains(path, "/watch/")
	switch {
	case watch && len(q["sendInitialEvents"]) > 0 && q["sendInitialEvents"][0] == "true":
		return "watch-list"
	case watch:
		return "watch"
	case strings.HasSuffix(path, "s"): // a collection: pods, nodes
		return "list"
	}
	return "other"
}

// answered tells the response, and decides how its body is told: a 2xx
// watch's reads and events are held for the reflector, anything else is told
// as it is read (on the reflector's goroutine).
func (t *Tracer) answered(r *reqState, resp *http.Response, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock()
	r.last = now
	if err != nil {
		r.ended = true
		explain := "no answer: the request failed before response headers arrived"
		if errors.Is(err, context.Canceled) {
			explain = "no answer: the client gave the request up (its context ended) first"
		}
		t.recordLocked(r, Record{Now: now, Step: &Step{Kind: KindResponse, Req: r.n, Response: &Response{
			Wait: now.Sub(r.sent), Error: oneLine(err.Error()), ContentLength: -1, Explain: explain,
		}}})
		return
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	r.format, _ = wire.ParseContentType(resp.Header.Get("Content-Type"))
	t.recordLocked(r, Record{Now: now, Step: &Step{Kind: KindResponse, Req: r.n, Response: &Response{
		Status:           resp.StatusCode,
		StatusText:       resp.Status,
		Proto:            resp.Proto,
		ContentType:      resp.Header.Get("Content-Type"),
		TransferEncoding: resp.TransferEncoding,
		ContentLength:    resp.ContentLength,
		RetryAfter:       resp.Header.Get("Retry-After"),
		Wait:             now.Sub(r.sent),
		Explain:          explainResponse(r.typ, resp),
	}}})
	switch {
	case ok && (r.typ == "watch" || r.typ == "watch-list") && r.client != "":
		// Another client's: told as they come, with no reflector to wait for.
		r.events = newFramer(r.format)
	case ok && (r.typ == "watch" || r.typ == "watch-list"):
		r.held = true
		r.initial = r.typ == "watch-list"
		r.events = newFramer(r.format)
		t.held = append(t.held, r)
		t.cur = r
	case !ok:
		r.status = []byte{}
	case r.format == wire.Protobuf:
		r.list = []byte{}
	}
}

// body traces the reads and the end of a response body.
type body struct {
	rc io.ReadCloser
	t  *Tracer
	r  *reqState
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.t.read(b.r, p[:n], err)
	return n, err
}

func (b *body) Close() error {
	b.t.closing(b.r)
	err := b.rc.Close()
	b.t.bodyClosed(b.r)
	return err
}

func (t *Tracer) read(r *reqState, data []byte, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.ended {
		return // a read after the body ended or was closed says nothing more
	}
	now := t.clock()
	if len(data) > 0 {
		t.recordLocked(r, Record{Now: now, Body: data,
			Step: &Step{Kind: KindRead, Req: r.n, Read: &Read{Bytes: len(data), Offset: r.bytes, Since: now.Sub(r.last)}}})
		r.last = now
		if r.events != nil {
			t.counts.WatchBytes += int64(len(data))
			r.events.feed(data, r.bytes, func(e *Event, object []byte) {
				r.lastEvent = e.Type
				t.recordLocked(r, Record{Now: now, Object: object, Step: &Step{Kind: KindEvent, Req: r.n, Event: e}})
			})
		}
		if r.status != nil && len(r.status) < statusBodyLimit {
			r.status = append(r.status, data[:min(len(data), statusBodyLimit-len(r.status))]...)
		}
		if r.list != nil {
			if len(r.list)+len(data) > listBodyLimit {
				r.list = nil
			} else {
				r.list = append(r.list, data...)
			}
		}
		r.bytes += int64(len(data))
		r.reads++
	}
	switch {
	case r.lastEvent == "ERROR":
		// The watch is over whatever comes next: the server closes it, and
		// the client stops reading. Whichever of the two happens first is a
		// matter of timing, so neither is told.
		t.endLocked(r, "error-event", "")
	case err == nil:
	case errors.Is(err, io.EOF):
		t.endLocked(r, "eof", "")
	case r.closing || errors.Is(err, context.Canceled):
		// Closing the body, or ending the request's context, fails the read
		// in progress; which comes first is timing too.
		t.endLocked(r, "closed", "")
	default:
		t.endLocked(r, "error", err.Error())
	}
}

func (t *Tracer) closing(r *reqState) {
	t.mu.Lock()
	r.closing = true
	t.mu.Unlock()
}

func (t *Tracer) bodyClosed(r *reqState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !r.ended {
		t.endLocked(r, "closed", "")
	}
}

func (t *Tracer) endLocked(r *reqState, how, msg string) {
	r.ended = true
	now := t.clock()
	e := &BodyEnd{How: how, Error: oneLine(msg), Bytes: r.bytes, Reads: r.reads, Duration: now.Sub(r.sent)}
	switch {
	case r.status != nil:
		e.Status = statusIn(r.format, r.status)
	}
	if r.events != nil {
		if tail := r.events.leftover(); tail > 0 {
			e.Error = joinErr(e.Error, itoa(tail)+" bytes after the last whole event")
		}
	}
	if r.list != nil && how == "eof" {
		env, err := ReadEnvelope(r.list)
		e.Envelope = env
		if err != nil {
			e.Error = joinErr(e.Error, oneLine(err.Error()))
		}
	}
	r.list = nil
	e.Explain = explainEnd(r.typ, e)
	t.recordLocked(r, Record{Now: now, Step: &Step{Kind: KindBodyEnd, Req: r.n, BodyEnd: e}})
}

// shown are the request headers a trace shows: what changes the answer.
// The User-Agent is left out: it differs from build to build.
var shown = map[string]bool{"Accept": true, "Authorization": true, "Content-Type": true,
	"Impersonate-User": true, "Impersonate-Group": true, "Impersonate-Uid": true}

func shownHeaders(h http.Header) []Header {
	var out []Header
	for name, vals := range h {
		if !shown[http.CanonicalHeaderKey(name)] {
			continue
		}
		for _, v := range vals {
			out = append(out, Header{Name: name, Value: mask.Header(name, v)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func joinErr(a, b string) string { return strings.TrimPrefix(a+"; "+b, "; ") }

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
