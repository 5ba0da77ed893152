package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/podwatch/podwatch/internal/apiwire"
)

// DefaultBufferSize is the bytes one stream may hold in the proxy by default:
// one read from the server, written to the client before the next.
const DefaultBufferSize = 32 << 10

// Options configure a Proxy. Upstream and Transport are required.
type Options struct {
	// Upstream is the apiserver's base URL; a path prefix on it is kept.
	Upstream *url.URL
	// Transport sends every forwarded request with the proxy's own
	// credentials (resthook.Forwarder).
	Transport http.RoundTripper
	// ForClient, when set, is called once for each new client, with the
	// transport its requests would go through, and returns the one they go
	// through instead (the trace's and the recorder's layers). It is called
	// under the proxy's lock, so never twice at once, and must not block.
	ForClient func(c Client, next http.RoundTripper) http.RoundTripper
	// BufferSize bounds the bytes one stream holds in the proxy; default
	// DefaultBufferSize.
	BufferSize int
	// ErrorLog, when set, is told each request the proxy could not forward.
	ErrorLog func(c Client, req *http.Request, err error)
}

// Proxy is an http.Handler forwarding every request to the upstream server.
type Proxy struct {
	opts Options
	rp   *httputil.ReverseProxy

	mu      sync.Mutex
	clients map[clientKey]*clientState
	names   map[string]bool
	order   []*clientState

	active      sync.WaitGroup
	maxBuffered atomic.Int64
	fromServer  atomic.Int64
	toClients   atomic.Int64
}

type clientState struct {
	Client
	rt http.RoundTripper
}

// Stats count what went through a Proxy.
type Stats struct {
	// FromServer and ToClients are the body bytes read from the server and
	// written to the clients.
	FromServer, ToClients int64
	// MaxBuffered is the most bytes any one stream held at once: read from
	// the server, not yet written to its client.
	MaxBuffered int64
}

// New returns a Proxy for opts.
func New(opts Options) *Proxy {
	if opts.BufferSize <= 0 {
		opts.BufferSize = DefaultBufferSize
	}
	p := &Proxy{opts: opts, clients: map[clientKey]*clientState{}, names: map[string]bool{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite:       p.rewrite,
		Transport:     roundTripFunc(p.roundTrip),
		FlushInterval: -1, // every read goes to the client at once: a watch must not wait in a buffer
		BufferPool:    newBufferPool(opts.BufferSize),
		ErrorHandler:  p.fail,
	}
	return p
}

// Upstream returns a copy of the server's base URL.
func (p *Proxy) Upstream() *url.URL {
	u := *p.opts.Upstream
	return &u
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	return Stats{FromServer: p.fromServer.Load(), ToClients: p.toClients.Load(), MaxBuffered: p.maxBuffered.Load()}
}

// Clients returns the clients seen so far, in the order they came.
func (p *Proxy) Clients() []Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Client, len(p.order))
	for i, c := range p.order {
		out[i] = c.Client
	}
	return out
}

// Wait returns once every request being served has returned. The server's
// own shutdown ends them (their contexts end when their connections close).
func (p *Proxy) Wait() { p.active.Wait() }

type streamKey struct{}

// stream is one forwarded request's body accounting.
type stream struct {
	p       *Proxy
	client  *clientState
	read    atomic.Int64 // from the server
	written atomic.Int64 // to the client
}

// buffered notes what s holds now, read from the server and not yet
// written to its client, in the proxy's maximum.
func (s *stream) buffered() {
	d := s.read.Load() - s.written.Load()
	for {
		m := s.p.maxBuffered.Load()
		if d <= m || s.p.maxBuffered.CompareAndSwap(m, d) {
			return
		}
	}
}

// ServeHTTP forwards r.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.active.Add(1)
	defer p.active.Done()
	s := &stream{p: p, client: p.client(r)}
	ctx := context.WithValue(r.Context(), streamKey{}, s)
	p.rp.ServeHTTP(&countingWriter{ResponseWriter: w, s: s}, r.WithContext(ctx))
}

func (p *Proxy) client(r *http.Request) *clientState {
	k := keyOf(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[k]; ok {
		return c
	}
	name := uniqueName(k.fileName(), p.names)
	c := &clientState{Client: Client{UserAgent: k.userAgent, Host: k.host, Name: name}, rt: p.opts.Transport}
	if p.opts.ForClient != nil {
		c.rt = p.opts.ForClient(c.Client, p.opts.Transport)
	}
	p.names[name] = true
	p.clients[k] = c
	p.order = append(p.order, c)
	return c
}

func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.opts.Upstream)
	// The client's credential is for the proxy, if anyone; upstream the
	// proxy's own credential is sent (the transport sets it).
	pr.Out.Header.Del("Authorization")
	// The upstream transport asks for gzip itself and hands on the bytes
	// decoded, so that what the trace and the recorder read (and what the
	// client gets) are the events as sent; a client's own Accept-Encoding
	// would pass the compressed bytes through unread.
	pr.Out.Header.Del("Accept-Encoding")
}

func (p *Proxy) roundTrip(req *http.Request) (*http.Response, error) {
	s := req.Context().Value(streamKey{}).(*stream)
	resp, err := s.client.rt.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err // an upgraded connection's body must stay a ReadWriteCloser
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, s: s}
	return resp, nil
}

// fail answers a request that could not be forwarded (or whose answer never
// came) with a Status, as the apiserver answers a request it cannot serve.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	s := r.Context().Value(streamKey{}).(*stream)
	if p.opts.ErrorLog != nil && !errors.Is(err, context.Canceled) {
		p.opts.ErrorLog(s.client.Client, r, err)
	}
	// In the form the client prefers, protobuf for the kubelet, as the
	// apiserver would answer it.
	rw, _ := apiwire.Respond(w, r)
	apiwire.ServiceUnavailable("podwatch proxy: the request could not be forwarded: " + err.Error()).Write(rw)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingBody counts the bytes read from the server.
type countingBody struct {
	io.ReadCloser
	s *stream
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.s.read.Add(int64(n))
		b.s.p.fromServer.Add(int64(n))
		b.s.buffered()
	}
	return n, err
}

// countingWriter counts the bytes written to the client. Unwrap lets the
// reverse proxy reach the connection's Flush.
type countingWriter struct {
	http.ResponseWriter
	s *stream
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.s.written.Add(int64(n))
	w.s.p.toClients.Add(int64(n))
	return n, err
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bufferPool hands out the one buffer each stream copies through, so that
// the buffer's size is the bound on what a stream holds.
type bufferPool struct {
	size int
	pool sync.Pool
}

func newBufferPool(size int) *bufferPool {
	return &bufferPool{size: size}
}

func (b *bufferPool) Get() []byte {
	if buf, ok := b.pool.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, b.size)
}

func (b *bufferPool) Put(buf []byte) { b.pool.Put(&buf) }
