package apiwire

import (
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// Respond returns the writer a server answers a request through, and the
// form the client gets. Servers write JSON, through the functions of this
// package (a protobuf recording is served through its JSON, see
// fixture.Recording.JSON); for a client that prefers protobuf (the
// kubelet), the writer turns each JSON document of an answer under /api or
// /apis, as it is completed, into what the apiserver sends that client:
//
//   - a 200 to a watch: application/vnd.kubernetes.protobuf;stream=watch,
//     each event a frame (a 4-byte big-endian length and a WatchEvent whose
//     object holds the envelope), bookmarks and ERROR events included;
//   - any other answer (a list, a Status of any code, discovery's
//     APIVersions, APIResourceList and APIGroupList, all of which the
//     apiserver also answers in protobuf): one envelope.
//
// Everything else is passed through as the server wrote it: other paths,
// bodies not plainly application/json (a proxy's HTML page, aggregated
// discovery, which has a media type of its own). A document the encoder
// cannot hold (the garbage and oversized-event faults) is passed on raw,
// with the rest of the body after it: the protobuf client then meets
// malformed bytes where the JSON client would have.
//
// A client that asks for application/cbor is answered likewise in CBOR: a
// watch as application/cbor-seq, one self-described item per event; any
// other answer one self-described item. A document a broken-off
// body leaves unfinished is never written, as the client never had it.
//
// Each document is written as soon as its last byte arrives, and flushed
// when the server flushes, so a replay's timing is kept event by event.
func Respond(w http.ResponseWriter, r *http.Request) (*Writer, wire.Format) {
	f, ok := Negotiate(r.Header.Get("Accept"))
	if !ok {
		f = wire.JSON // the server answers the 406, in JSON
	}
	_, watchPath, _ := RoutePods(r.URL.Path)
	return &Writer{w: w, want: f, api: isAPIPath(r.URL.Path), watch: watchPath || isTrue(r.URL.Query(), "watch")}, f
}

// isAPIPath reports a path the apiserver serves API objects under, which it
// negotiates; others (/version, /healthz) are JSON or text whatever the
// client asks.
func isAPIPath(p string) bool {
	return p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/")
}

// maxDocument bounds what the writer gathers for one document, as the
// watch decoders bound one event.
const maxDocument = protowire.DefaultLimit

// Writer is the http.ResponseWriter Respond returns.
type Writer struct {
	w       http.ResponseWriter
	want    wire.Format
	api     bool
	watch   bool
	started bool      // WriteHeader has passed on
	conv    converter // nil: the body passes through
	raw     bool      // conversion gave up: the rest passes through
	pending []byte
}

// converter turns the documents at the start of pending into the client's
// form: n is how many bytes it consumed (0: it needs more), out what to write.
type converter interface {
	next(pending []byte) (n int, out []byte, err error)
}

func (p *Writer) Header() http.Header { return p.w.Header() }

// Unwrap gives http.ResponseController the writer beneath.
func (p *Writer) Unwrap() http.ResponseWriter { return p.w }

// WriteHeader picks the conversion from the Content-Type the server set.
func (p *Writer) WriteHeader(code int) {
	if code < 200 { // informational: the answer's own header comes later
		p.w.WriteHeader(code)
		return
	}
	if p.started {
		return
	}
	p.started = true
	h := p.w.Header()
	if p.api {
		stream := p.watch && code == http.StatusOK
		if h.Get("Content-Type") == wire.ContentTypeJSON && p.want != wire.JSON {
			p.conv = newConverter(p.want, stream)
			ct := p.want.ContentType()
			if stream {
				ct = p.want.WatchContentType()
			}
			h.Set("Content-Type", ct)
			h.Del("Content-Length")
		}
	}
	p.w.WriteHeader(code)
}

func (p *Writer) Write(b []byte) (int, error) {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	if p.conv == nil || p.raw {
		return p.w.Write(b)
	}
	p.pending = append(p.pending, b...)
	if err := p.drain(); err != nil {
		return 0, err
	}
	return len(b), nil
}

// drain writes every document pending holds whole.
func (p *Writer) drain() error {
	for len(p.pending) > 0 && !p.raw {
		n, out, err := p.conv.next(p.pending)
		switch {
		case err != nil, n == 0 && len(p.pending) > maxDocument:
			return p.giveUp()
		case n == 0:
			return nil
		}
		if len(out) > 0 {
			if _, err := p.w.Write(out); err != nil {
				return err
			}
		}
		p.pending = p.pending[:copy(p.pending, p.pending[n:])]
	}
	return nil
}

// giveUp passes what is pending, and then everything, through unchanged.
func (p *Writer) giveUp() error {
	p.raw = true
	_, err := p.w.Write(p.pending)
	p.pending = nil
	return err
}

// Flush passes on the server's flush: what is converted is sent.
func (p *Writer) Flush() {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
}

var _ http.Flusher = (*Writer)(nil)
