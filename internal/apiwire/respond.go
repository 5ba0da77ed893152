package apiwire

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/table"
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
//   - a 200 to a watch: wire.ContentTypeProtobufWatch,
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
// A client that asks for wire.ContentTypeCBOR is answered likewise in CBOR:
// a watch as wire.ContentTypeCBORSeq, one self-described item per event; any
// other answer one self-described item. A document a broken-off
// body leaves unfinished is never written, as the client never had it.
//
// A client that asks for a Table of pods (kubectl's get, NegotiateMedia)
// gets, for a 200 to a list or watch of pods, what the apiserver sends it,
// made by package table from the pods the server wrote, at the moment each
// document is written: a list becomes one meta.k8s.io Table, a row a pod;
// a watch becomes the same events, each object a Table of one row, the
// column definitions on the first only. Status answers and ERROR events
// stay as they are, as the apiserver leaves them. An includeObject the
// apiserver refuses gets its 400 in place of the server's answer, whose
// writes then fail with ErrRefused, so that the server stops as it does
// for a client gone away.
//
// Each document is written as soon as its last byte arrives, and flushed
// when the server flushes, so a replay's timing is kept event by event.
func Respond(w http.ResponseWriter, r *http.Request) (*Writer, wire.Format) {
	m, ok := NegotiateMedia(r.Header.Get("Accept"))
	if !ok {
		m = Media{Format: wire.JSON} // the server answers the 406, in JSON
	}
	_, watchPath, pods := RoutePods(r.URL.Path)
	q := r.URL.Query()
	p := &Writer{w: w, want: m.Format, api: isAPIPath(r.URL.Path), watch: watchPath || isTrue(q, "watch")}
	if pods && m.Table != "" {
		p.table = &tableAsked{version: m.Table, include: q.Get("includeObject"), now: time.Now}
	}
	return p, m.Format
}

// WithClock makes now the clock a Table's AGE and RESTARTS are told by,
// the wall clock unless told: a test judging Tables against the
// apiserver's tells them by the apiserver's clock. It returns p.
func (p *Writer) WithClock(now func() time.Time) *Writer {
	if p.table != nil {
		p.table.now = now
	}
	return p
}

// tableAsked is a Table request for pods: the meta.k8s.io version, the
// includeObject parameter as given, and the clock AGE is told by.
type tableAsked struct {
	version string
	include string
	now     func() time.Time
}

// ErrRefused is what writes to a Writer return once it has answered the
// request with a Status in place of the server's answer.
var ErrRefused = errors.New("apiwire: the request was answered with a Status in place of the server's answer")

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
	table   *tableAsked // nil unless the client asked for a Table of pods
	started bool        // WriteHeader has passed on
	refused bool        // a Status went out in place of the answer: writes fail
	conv    converter   // nil: the body passes through
	raw     bool        // conversion gave up: the rest passes through
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
	if p.api && h.Get("Content-Type") == wire.ContentTypeJSON {
		stream := p.watch && code == http.StatusOK
		switch {
		case p.table != nil && code == http.StatusOK:
			if !p.startTable(stream) {
				return
			}
		case p.want != wire.JSON:
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

// startTable sets the body's conversion to Tables, or answers the 400 the
// apiserver gives an includeObject it does not know and reports false.
func (p *Writer) startTable(stream bool) bool {
	p.w.Header().Del("Content-Length") // the server's length is its body's
	include, err := table.ParseInclude(p.table.include)
	if err != nil {
		p.refused = true
		BadRequest("Unable to convert to Table as requested: " + err.Error()).Write(p.w)
		return false
	}
	p.conv = newTableConverter(table.Options{Version: p.table.version, Include: include}, stream, p.table.now)
	return true
}

func (p *Writer) Write(b []byte) (int, error) {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	if p.refused {
		return 0, ErrRefused
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
