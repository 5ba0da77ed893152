package rest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/podwatch/podwatch/internal/resthook"
)

// h2Server is an HTTP/2 server over TLS run frame by frame with x/net's
// Framer, so that a test decides what net/http's server never lets it: to
// leave pings unanswered, or to say GOAWAY after the first answer. Each
// request gets a 200 and one line of JSON; a watch's stream then stays
// open, a list's ends.
type h2Server struct {
	t  *testing.T
	ln net.Listener
	// answerPings: ack each PING (every HTTP/2 server must); false plays a
	// server whose connection has half died.
	answerPings bool
	// goAway: after the first answer on a connection, tell the client to
	// take no more requests there.
	goAway bool

	pings atomic.Int32 // PING frames received, all connections
	// conns counts the connections that carried a request. net/http may
	// make one more than it needs (it dials for a request while the
	// connection it made for the last is on its way back to its idle
	// list), and closes it unused: that one is not counted.
	conns atomic.Int32

	wg     sync.WaitGroup
	mu     sync.Mutex
	open   []net.Conn
	closed bool
}

func startH2Server(t *testing.T, pki *testPKI, s *h2Server) *h2Server {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pki.serverCert},
		NextProtos:   []string{http2.NextProtoTLS},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.t, s.ln = t, ln
	s.wg.Go(s.accept)
	t.Cleanup(s.close)
	return s
}

func (s *h2Server) url() string { return "https://" + s.ln.Addr().String() }

func (s *h2Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.open = append(s.open, c)
		s.mu.Unlock()
		s.wg.Go(func() {
			defer c.Close()
			s.serve(c)
		})
	}
}

// close stops accepting, cuts every connection and waits for their
// goroutines.
func (s *h2Server) close() {
	s.ln.Close()
	s.mu.Lock()
	s.closed = true
	for _, c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// serve speaks HTTP/2 on one connection. Only this goroutine writes to it.
func (s *h2Server) serve(c net.Conn) {
	br := bufio.NewReader(c)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, br)
	if fr.WriteSettings() != nil {
		return
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	answered := false
	lastStream := ^uint32(0) >> 1 // the last stream it takes: all until a GOAWAY says
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() && fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.PingFrame:
			if f.IsAck() {
				continue
			}
			s.pings.Add(1)
			if s.answerPings && fr.WritePing(true, f.Data) != nil {
				return
			}
		case *http2.HeadersFrame:
			if f.StreamID > lastStream {
				continue // after its GOAWAY a server leaves new streams alone
			}
			if !answered {
				s.conns.Add(1)
			}
			block.Reset()
			enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
			watch := false
			if dec, err := hpack.NewDecoder(4096, nil).DecodeFull(f.HeaderBlockFragment()); err == nil {
				for _, h := range dec {
					watch = watch || h.Name == ":path" && strings.Contains(h.Value, "watch=true")
				}
			}
			body := `{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[]}`
			if watch {
				body = `{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"1"}}}` + "\n"
			}
			if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: block.Bytes(), EndHeaders: true}) != nil ||
				fr.WriteData(f.StreamID, !watch, []byte(body)) != nil {
				return
			}
			if s.goAway && !answered {
				if fr.WriteGoAway(f.StreamID, http2.ErrCodeNo, nil) != nil {
					return
				}
				lastStream = f.StreamID
			}
			answered = true
		}
	}
}

// h2Config is a client of s with pings after readIdle of silence, given up
// after pingTimeout.
func h2Config(pki *testPKI, s *h2Server, readIdle, pingTimeout time.Duration) Config {
	return Config{Host: s.url(), TLS: TLSConfig{CAData: pki.caPEM}, MaxRetries: -1,
		HTTP2ReadIdleTimeout: readIdle, HTTP2PingTimeout: pingTimeout}
}

// openWatch starts a watch and reads its first event, so that what the
// test sees next is the connection's silence. The rest of the body is read
// on a goroutine, which tells how it ended and stops when the test does.
func openWatch(t *testing.T, c *Client) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	resp, err := c.Get().Resource("pods").Watch(true).Stream(ctx)
	if err != nil {
		t.Fatalf("Stream of a watch: %v", err)
	}
	var done chan struct{} // closed when the reading goroutine ends
	t.Cleanup(func() {
		resp.Body.Close()
		if done != nil {
			<-done
		}
	})
	if resp.ProtoMajor != 2 {
		t.Fatalf("the watch went over %s, want HTTP/2", resp.Proto)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "BOOKMARK") {
		t.Fatalf("first event %q, %v; want the server's bookmark", line, err)
	}
	ended := make(chan error, 1)
	done = make(chan struct{})
	go func() {
		defer close(done)
		_, err := io.Copy(io.Discard, resp.Body)
		if err == nil {
			err = io.EOF // the server never ends the stream: any end is a failure
		}
		ended <- err
	}()
	return ended
}

// TestHTTP2PingEndsSilentWatch: an idle HTTP/2 connection is pinged after
// HTTP2ReadIdleTimeout of silence, and a ping unanswered for
// HTTP2PingTimeout ends the connection and the watch on it, with no trace
// attached. The lower bound is exact (x/net's timers never fire early, and
// the connection's last frame came after start); the upper one is only
// there to fail rather than hang on a loaded machine.
func TestHTTP2PingEndsSilentWatch(t *testing.T) {
	const readIdle, pingTimeout = 300 * time.Millisecond, 300 * time.Millisecond
	pki := newTestPKI(t)
	srv := startH2Server(t, pki, &h2Server{answerPings: false})
	c := mustClient(t, h2Config(pki, srv, readIdle, pingTimeout))
	start := time.Now()
	ended := openWatch(t, c)
	select {
	case err := <-ended:
		took := time.Since(start)
		if errors.Is(err, io.EOF) {
			t.Fatalf("the watch ended cleanly; want the connection given up")
		}
		if took < readIdle+pingTimeout {
			t.Fatalf("the watch ended after %s, before a ping could have been sent and waited for (%s)", took, readIdle+pingTimeout)
		}
	case <-time.After(readIdle + pingTimeout + 20*time.Second):
		t.Fatalf("the silent watch was not ended within %s of its connection going quiet", readIdle+pingTimeout+20*time.Second)
	}
	if n := srv.pings.Load(); n != 1 {
		t.Fatalf("the server got %d pings, want the one that found the connection dead", n)
	}
}

// TestHTTP2PingsKeepQuietWatch: a server that answers pings keeps a
// silent watch open past the point an unanswered ping would have ended it
// (three pings, each sent after a read-idle spell, outlast read-idle plus
// the ping timeout); counted in pings, not timed.
func TestHTTP2PingsKeepQuietWatch(t *testing.T) {
	const readIdle, pingTimeout = 200 * time.Millisecond, 200 * time.Millisecond
	pki := newTestPKI(t)
	srv := startH2Server(t, pki, &h2Server{answerPings: true})
	c := mustClient(t, h2Config(pki, srv, readIdle, pingTimeout))
	ended := openWatch(t, c)
	deadline := time.After(30 * time.Second)
	for srv.pings.Load() < 3 {
		select {
		case err := <-ended:
			t.Fatalf("the watch ended (%v) after %d answered pings", err, srv.pings.Load())
		case <-deadline:
			t.Fatalf("%d pings within 30s of silence, want 3", srv.pings.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
	select {
	case err := <-ended:
		t.Fatalf("the watch ended (%v) though every ping was answered", err)
	default:
	}
	if n := srv.conns.Load(); n != 1 {
		t.Fatalf("%d connections, want the watch's one", n)
	}
}

// TestHTTP2GoAwayMovesToANewConnection: once the server says GOAWAY, the
// next request goes over a new connection and succeeds; each connection is
// handed over to HTTP/2 once.
func TestHTTP2GoAwayMovesToANewConnection(t *testing.T) {
	pki := newTestPKI(t)
	srv := startH2Server(t, pki, &h2Server{answerPings: true, goAway: true})
	cfg := h2Config(pki, srv, 0, 0)
	var wrapped atomic.Int32
	resthook.On(&cfg).WrapConn = func(_ string, c net.Conn) net.Conn {
		wrapped.Add(1)
		return c
	}
	c := mustClient(t, cfg)
	for i := range 3 {
		if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
	}
	if n := srv.conns.Load(); n != 3 {
		t.Fatalf("%d connections for 3 lists each followed by GOAWAY, want 3", n)
	}
	if n := wrapped.Load(); n != 3 {
		t.Fatalf("%d connections passed the WrapConn hook, want 3", n)
	}
}

// TestHTTP2ResponseHeaderTimeout: over HTTP/2 too, a server that accepts
// a watch and never answers its headers is given up on after
// ResponseHeaderTimeout.
func TestHTTP2ResponseHeaderTimeout(t *testing.T) {
	pki := newTestPKI(t)
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.serverCert}}
	srv.StartTLS()
	defer srv.Close()
	defer close(release)
	c := mustClient(t, Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM}, ResponseHeaderTimeout: 50 * time.Millisecond, MaxRetries: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Get().Resource("pods").Watch(true).Stream(ctx)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("Stream of a watch whose headers never come succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("Stream returned only when the test's own deadline passed: %v", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v is not a timeout", err)
	}
	if !strings.Contains(err.Error(), "/api/v1/pods") {
		t.Fatalf("error %q does not name the request", err)
	}
}

// TestWrapConn: the hook stands between each HTTP/2 connection and the
// HTTP/2 client, after TLS (it sees h2 negotiated, and what it passes on
// carries the requests); HTTP/1.1 connections never reach it.
func TestWrapConn(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, false)
	var mu sync.Mutex
	var seen []string
	var written atomic.Int64
	hook := func(authority string, c net.Conn) net.Conn {
		proto := "no TLS state"
		if cs, ok := c.(interface{ ConnectionState() tls.ConnectionState }); ok {
			proto = cs.ConnectionState().NegotiatedProtocol
		}
		mu.Lock()
		seen = append(seen, authority+" "+proto)
		mu.Unlock()
		return &countingConn{Conn: c, written: &written}
	}
	for _, tc := range []struct {
		name      string
		disable   bool
		wantProto string
		wantSeen  int
	}{
		{"HTTP/2", false, "HTTP/2.0", 1},
		{"HTTP/1.1 forced", true, "HTTP/1.1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			written.Store(0)
			cfg := Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM}, DisableHTTP2: tc.disable}
			resthook.On(&cfg).WrapConn = hook
			c := mustClient(t, cfg)
			defer c.CloseIdleConnections()
			for range 2 {
				b, err := c.Get().Resource("pods").Do(context.Background())
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
				if got := string(b); got != tc.wantProto+" anonymous" {
					t.Fatalf("answer %q, want it over %s", got, tc.wantProto)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != tc.wantSeen {
				t.Fatalf("the hook saw %q, want %d connections", seen, tc.wantSeen)
			}
			if tc.wantSeen > 0 {
				if want := strings.TrimPrefix(srv.URL, "https://") + " h2"; seen[0] != want {
					t.Fatalf("the hook saw %q, want %q", seen[0], want)
				}
				if written.Load() == 0 {
					t.Fatalf("nothing was written through the wrapped connection")
				}
			}
		})
	}
}

type countingConn struct {
	net.Conn
	written *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// TestWrapDial: the hook's dialer makes the client's connections, and a
// caller's own Transport is left alone.
func TestWrapDial(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, false)
	var dials atomic.Int32
	// The client asks for a name nobody resolves; the hook sends it to the server.
	cfg := Config{Host: "https://apiserver.test:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:], TLS: TLSConfig{CAData: pki.caPEM}}
	resthook.On(&cfg).WrapDial = func(dial resthook.DialFunc) resthook.DialFunc {
		return func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dial(ctx, network, srv.Listener.Addr().String())
		}
	}
	for range 2 {
		if _, err := mustClient(t, cfg).Get().Resource("pods").Do(context.Background()); err != nil {
			t.Fatalf("Do: %v", err)
		}
	}
	if n := dials.Load(); n != 2 {
		t.Fatalf("the hook's dialer dialled %d times for two clients, want 2", n)
	}

	called := false
	own := Config{Host: srv.URL, Transport: http.DefaultTransport}
	resthook.On(&own).WrapDial = func(d resthook.DialFunc) resthook.DialFunc { called = true; return d }
	if _, err := NewClient(own); err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if called {
		t.Fatalf("the hook was called although Config.Transport replaces the built transport")
	}
}

// TestHTTP2ThroughConnectProxy: an https server reached through a CONNECT
// proxy is still spoken to over HTTP/2, on a connection through the
// tunnel, and the WrapConn hook (the trace's tap) sees it as any other.
func TestHTTP2ThroughConnectProxy(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, false)
	proxy := startConnectProxy(t)
	cfg := Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM}, Proxy: http.ProxyURL(proxy.url)}
	var wrapped atomic.Int32
	resthook.On(&cfg).WrapConn = func(_ string, c net.Conn) net.Conn {
		wrapped.Add(1)
		return c
	}
	c := mustClient(t, cfg)
	defer c.CloseIdleConnections()
	for range 2 {
		b, err := c.Get().Resource("pods").Do(context.Background())
		if err != nil {
			t.Fatalf("Do through the proxy: %v", err)
		}
		if string(b) != "HTTP/2.0 anonymous" {
			t.Fatalf("answer %q, want it over HTTP/2", b)
		}
	}
	if n := proxy.tunnels.Load(); n != 1 {
		t.Fatalf("the proxy opened %d tunnels, want one for both requests", n)
	}
	if n := wrapped.Load(); n != 1 {
		t.Fatalf("%d connections passed the WrapConn hook, want the tunnel's", n)
	}
}

// connectProxy tunnels each CONNECT to the host it names.
type connectProxy struct {
	url     *url.URL
	tunnels atomic.Int32
}

func startConnectProxy(t *testing.T) *connectProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{url: &url.URL{Scheme: "http", Host: ln.Addr().String()}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			track(client)
			wg.Go(func() {
				br := bufio.NewReader(client)
				req, err := http.ReadRequest(br)
				if err != nil || req.Method != http.MethodConnect {
					client.Close()
					return
				}
				server, err := net.Dial("tcp", req.Host)
				if err != nil {
					client.Close()
					return
				}
				track(server)
				p.tunnels.Add(1)
				io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n")
				wg.Go(func() {
					io.Copy(server, br) // br holds anything the client sent early
					server.Close()
				})
				io.Copy(client, server)
				client.Close()
			})
		}
	})
	return p
}

// TestDisableCompressionOnBothProtocols: the client asks for gzip (and
// reads it transparently) over HTTP/2 and HTTP/1.1 alike, and asks for
// nothing with DisableCompression.
func TestDisableCompressionOnBothProtocols(t *testing.T) {
	pki := newTestPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := r.Proto + " asked " + r.Header.Get("Accept-Encoding")
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			io.WriteString(gz, answer)
			gz.Close()
			return
		}
		io.WriteString(w, answer)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.serverCert}}
	srv.StartTLS()
	defer srv.Close()
	for _, tc := range []struct {
		name         string
		disableHTTP2 bool
		disableGzip  bool
		want         string
	}{
		{"HTTP/2", false, false, "HTTP/2.0 asked gzip"},
		{"HTTP/2 without compression", false, true, "HTTP/2.0 asked "},
		{"HTTP/1.1", true, false, "HTTP/1.1 asked gzip"},
		{"HTTP/1.1 without compression", true, true, "HTTP/1.1 asked "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustClient(t, Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM}, DisableHTTP2: tc.disableHTTP2, DisableCompression: tc.disableGzip})
			defer c.CloseIdleConnections()
			b, err := c.Get().Resource("pods").Do(context.Background())
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if string(b) != tc.want {
				t.Fatalf("answer %q, want %q", b, tc.want)
			}
		})
	}
}
