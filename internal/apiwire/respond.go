package apiwire

import (
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/protowire"
)

// Respond returns the writer a server answers a request through, and the
// form it answers in. Servers write JSON, always, through the functions of
// this package; for a client that prefers protobuf (the kubelet), the writer
// turns each JSON document of an answer under /api or /apis, as it is
// completed, into what the apiserver sends that client:
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
// Each document is written out as soon as its last byte arrives, and
// flushed when the server flushes, so a replay's timing is kept event by
// event.
func Respond(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, Format) {
	f, ok := Negotiate(r.Header.Get("Accept"))
	if !ok || f == JSON || !isAPIPath(r.URL.Path) {
		return w, JSON
	}
	_, watchPath, _ := RoutePods(r.URL.Path)
	return &protobufWriter{w: w, watch: watchPath || isTrue(r.URL.Query(), "watch")}, Protobuf
}

// isAPIPath reports a path the apiserver serves API objects under, which it
// negotiates; others (/version, /healthz) are JSON or text whatever the client asks.
func isAPIPath(p string) bool {
	return p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/")
}

// maxDocument bounds the JSON the protobuf writer gathers for one document,
// as the watch decoders bound one event.
const maxDocument = protowire.DefaultLimit

// protobufWriter is the writer Respond gives a protobuf client.
type protobufWriter struct {
	w       http.ResponseWriter
	watch   bool
	started bool // WriteHeader has passed on
	convert bool // the body is JSON to turn into protobuf; false: passed through
	stream  bool // frames (a 200 to a watch) rather than one envelope
	raw     bool // conversion gave up: the rest passes through
	pending []byte
	framer  stream.JSONFramer
	scanned bool // framer holds the scan of pending's first document
	out     []byte
	enc     protowire.Encoder
}

func (p *protobufWriter) Header() http.Header { return p.w.Header() }

// Unwrap gives http.ResponseController the writer beneath.
func (p *protobufWriter) Unwrap() http.ResponseWriter { return p.w }

func (p *protobufWriter) WriteHeader(code int) {
	if p.started {
		return
	}
	p.started = true
	h := p.w.Header()
	if code >= 200 && h.Get("Content-Type") == MediaJSON {
		p.convert = true
		p.stream = p.watch && code == http.StatusOK
		h.Set("Content-Type", Protobuf.ContentType(p.stream))
		h.Del("Content-Length")
	}
	p.w.WriteHeader(code)
}

func (p *protobufWriter) Write(b []byte) (int, error) {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	if !p.convert || p.raw {
		return p.w.Write(b)
	}
	p.pending = append(p.pending, b...)
	if err := p.drain(); err != nil {
		return 0, err
	}
	return len(b), nil
}

// drain writes every document pending holds whole.
func (p *protobufWriter) drain() error {
	for {
		start := 0
		for start < len(p.pending) && isSpace(p.pending[start]) {
			start++
		}
		p.pending = p.pending[:copy(p.pending, p.pending[start:])]
		if len(p.pending) == 0 {
			return nil
		}
		if !p.scanned {
			p.framer.Reset(0)
			p.scanned = true
		}
		n, err := p.framer.Scan(p.pending)
		switch {
		case err != nil:
			return p.giveUp()
		case n < 0 && len(p.pending) > maxDocument:
			return p.giveUp()
		case n < 0:
			return nil
		}
		p.scanned = false
		if err := p.document(p.pending[:n]); err != nil {
			return err
		}
		p.pending = p.pending[:copy(p.pending, p.pending[n:])]
	}
}

// document writes one whole JSON document in protobuf.
func (p *protobufWriter) document(doc []byte) error {
	var err error
	if p.stream {
		p.out, err = p.enc.EventFrame(p.out[:0], doc)
	} else {
		p.out, err = p.enc.Envelope(p.out[:0], doc)
	}
	if err != nil {
		return p.giveUp()
	}
	_, err = p.w.Write(p.out)
	return err
}

// giveUp passes what is pending, and then everything, through unchanged.
func (p *protobufWriter) giveUp() error {
	p.raw = true
	_, err := p.w.Write(p.pending)
	p.pending = nil
	return err
}

// Flush passes on the server's flush: what is written whole is sent.
func (p *protobufWriter) Flush() {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	if f, ok := p.w.(http.Flusher); ok {
		f.Flush()
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// Compile-time checks: servers flush through the writer.
var _ http.Flusher = (*protobufWriter)(nil)
