package rest

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// transport is the connection stack NewClient builds. net/http's Transport
// makes every connection (the proxy, TLS with the client certificate of
// the moment, ALPN) and speaks HTTP/1.1 where the server chose it; each
// connection on which the server chose h2 it hands to golang.org/x/net's
// HTTP/2 Transport (see http2Conns), which pools it and pings it. One
// HTTP/2 stack, whether a trace taps the connections or not: net/http's
// bundled copy is never set up.
type transport struct {
	h1 *http.Transport
	h2 *http2Conns // nil with DisableHTTP2
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.h1.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of both protocols, and
// any connection handed over for HTTP/2 that no request took.
func (t *transport) CloseIdleConnections() {
	t.h1.CloseIdleConnections()
	if t.h2 != nil {
		t.h2.closeIdle()
	}
}

// http2Conns is the HTTP/2 side of the transport: x/net's Transport, fed
// with the connections net/http made. x/net would dial connections itself
// (it has no proxy support) or take them from net/http only as a *tls.Conn
// (ConfigureTransports), which a tap cannot wrap; so net/http hands each
// connection over (handoff), and x/net takes it when its pool next dials
// for a request that came through it (dial). Every https request asks
// x/net's pool first (cachedOnly), as ConfigureTransports has it do. The
// pool, the reuse of connections across requests, GOAWAY and stale
// connections, and the health pings are all x/net's.
type http2Conns struct {
	t2 *http2.Transport
	// wrap, when set, stands between each connection and x/net once x/net
	// takes it (resthook.Hooks.WrapConn: the trace's tap).
	wrap func(authority string, c net.Conn) net.Conn
	// headerTimeout bounds the wait for response headers (x/net's
	// Transport has no such setting of its own when it stands alone).
	headerTimeout time.Duration

	mu      sync.Mutex
	pending map[*handoff]bool // handed over, not yet taken by x/net
}

// readIdle and pingTimeout are Config's HTTP2ReadIdleTimeout and
// HTTP2PingTimeout, already defaulted.
func newHTTP2Conns(h1 *http.Transport, readIdle, pingTimeout, headerTimeout time.Duration, wrap func(string, net.Conn) net.Conn) *http2Conns {
	c := &http2Conns{wrap: wrap, headerTimeout: headerTimeout, pending: map[*handoff]bool{}}
	c.t2 = &http2.Transport{
		DialTLSContext:     c.dial,
		DisableCompression: h1.DisableCompression,
		IdleConnTimeout:    h1.IdleConnTimeout,
		// A watch on a half-dead connection would otherwise wait forever.
		ReadIdleTimeout: readIdle,
		PingTimeout:     pingTimeout,
	}
	// The TLSNextProto entry is also what keeps net/http from setting up
	// its bundled HTTP/2.
	h1.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{http2.NextProtoTLS: c.handoff}
	h1.TLSClientConfig.NextProtos = []string{http2.NextProtoTLS, "http/1.1"}
	h1.RegisterProtocol("https", cachedOnly{c})
	return c
}

// cachedOnly is where net/http sends each https request first: one that
// x/net's pool can serve on a connection it has goes there at once; any
// other goes on through net/http, which finds or makes a connection (and
// hands it over when the server chooses h2).
type cachedOnly struct{ c *http2Conns }

func (o cachedOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.c.roundTrip(req, nil)
	if errors.Is(err, http2.ErrNoCachedConn) {
		return nil, http.ErrSkipAltProtocol
	}
	if err == nil {
		// The pool has a connection for the authority: any handed over
		// since and not taken (net/http may dial while a connection it made
		// is on its way back to its idle list) is not needed. net/http
		// never closes a connection it handed over, so it would stay open.
		o.c.releaseAll(authority(req.URL))
	}
	return resp, err
}

// authority is u's host:port as net/http names the connections it makes
// for u (and x/net its pool's).
func authority(u *url.URL) string {
	if port := u.Port(); port != "" {
		return net.JoinHostPort(u.Hostname(), port)
	}
	return net.JoinHostPort(u.Hostname(), "443")
}

// handoff is net/http's TLSNextProto for h2: it is called with each new
// connection on which the server chose HTTP/2, and net/http sends every
// request for that authority to what it returns, until that answers
// http2.ErrNoCachedConn.
func (c *http2Conns) handoff(authority string, tc *tls.Conn) http.RoundTripper {
	h := &handoff{conns: c, authority: authority, conn: tc}
	c.mu.Lock()
	c.pending[h] = true
	c.mu.Unlock()
	return h
}

// handoff is one connection net/http made, on its way to x/net's pool.
type handoff struct {
	conns     *http2Conns
	authority string
	conn      *tls.Conn // until x/net takes it or it is found unneeded; guarded by conns.mu
}

type handoffKey struct{}

// RoundTrip sends req over x/net's pool. When the pool has no connection
// for the authority it dials with req's context, and so takes h's (dial).
// When it had one, h's is not needed, and closed.
func (h *handoff) RoundTrip(req *http.Request) (*http.Response, error) {
	return h.conns.roundTrip(req, h)
}

// roundTrip sends req with x/net's Transport, h the handoff it came
// through (nil from cachedOnly), and bounds the wait for its headers.
func (c *http2Conns) roundTrip(req *http.Request, h *handoff) (*http.Response, error) {
	ctx := req.Context()
	if h != nil {
		ctx = context.WithValue(ctx, handoffKey{}, h)
	}
	cancel := context.CancelCauseFunc(func(error) {})
	var timer *time.Timer
	if d := c.headerTimeout; d > 0 {
		ctx, cancel = context.WithCancelCause(ctx)
		timer = time.AfterFunc(d, func() { cancel(errHTTP2HeaderTimeout) })
	}
	resp, err := c.t2.RoundTrip(req.WithContext(ctx))
	if h != nil {
		c.release(h)
	}
	if timer != nil && !timer.Stop() {
		if err == nil {
			resp.Body.Close()
		}
		err = errHTTP2HeaderTimeout
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	if timer != nil {
		// The stream lives as long as its context: until the body is closed.
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	}
	return resp, nil
}

// dial is x/net's DialTLSContext. Its ctx is that of the request the pool
// dials for: one that came through a handoff takes that handoff's
// connection. A request from cachedOnly, or through a handoff whose
// connection is gone (taken for an earlier request, or closed as unneeded),
// answers http2.ErrNoCachedConn, and net/http then finds or makes a
// connection in its turn.
func (c *http2Conns) dial(ctx context.Context, _, _ string, _ *tls.Config) (net.Conn, error) {
	h, _ := ctx.Value(handoffKey{}).(*handoff)
	var tc *tls.Conn
	if h != nil {
		tc = c.take(h)
	}
	if tc == nil {
		return nil, http2.ErrNoCachedConn
	}
	if c.wrap != nil {
		return c.wrap(h.authority, tc), nil
	}
	return tc, nil
}

// take removes h's connection from it, nil when it has none left.
func (c *http2Conns) take(h *handoff) *tls.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	tc := h.conn
	h.conn = nil
	delete(c.pending, h)
	return tc
}

// release closes h's connection unless x/net took it.
func (c *http2Conns) release(h *handoff) {
	if tc := c.take(h); tc != nil {
		tc.Close()
	}
}

// releaseAll closes the connections handed over for authority (all, when
// it is "") that x/net has not taken.
func (c *http2Conns) releaseAll(authority string) {
	var unneeded []*tls.Conn
	c.mu.Lock()
	for h := range c.pending {
		if authority == "" || h.authority == authority {
			unneeded = append(unneeded, h.conn)
			h.conn = nil
			delete(c.pending, h)
		}
	}
	c.mu.Unlock()
	// Outside the lock: closing a TLS connection writes to it.
	for _, tc := range unneeded {
		tc.Close()
	}
}

func (c *http2Conns) closeIdle() {
	c.t2.CloseIdleConnections()
	c.releaseAll("")
}

// errHTTP2HeaderTimeout is what an HTTP/2 request whose response headers
// came too late fails with; net/http's HTTP/1.1 one says the same.
var errHTTP2HeaderTimeout error = headerTimeoutError{}

type headerTimeoutError struct{}

func (headerTimeoutError) Error() string   { return "http2: timeout awaiting response headers" }
func (headerTimeoutError) Timeout() bool   { return true }
func (headerTimeoutError) Temporary() bool { return true }
