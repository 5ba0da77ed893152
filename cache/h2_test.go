package cache

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// freezeProxy forwards TCP connections to a backend until freeze is called: from
// then on the connections open at that moment stay open but forward nothing in
// either direction, as a peer that vanished without a FIN or RST. Connections
// accepted later forward normally.
type freezeProxy struct {
	ln      net.Listener
	backend string
	wg      sync.WaitGroup
	closing chan struct{}

	mu     sync.Mutex
	conns  []net.Conn
	frozen []chan struct{} // one per accepted connection; closed by freeze
}

func newFreezeProxy(t *testing.T, backend string) *freezeProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &freezeProxy{ln: ln, backend: backend, closing: make(chan struct{})}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *freezeProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", p.backend)
		if err != nil {
			c.Close()
			continue
		}
		frozen := make(chan struct{})
		p.mu.Lock()
		select {
		case <-p.closing:
			// close has already closed what it knew of: these are left to us.
			p.mu.Unlock()
			c.Close()
			b.Close()
			return
		default:
		}
		p.conns = append(p.conns, c, b)
		p.frozen = append(p.frozen, frozen)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(b, c, frozen)
		go p.pipe(c, b, frozen)
	}
}

// pipe copies src to dst; once frozen, what it reads is dropped and it waits for
// the proxy to close.
func (p *freezeProxy) pipe(dst, src net.Conn, frozen chan struct{}) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-frozen:
			<-p.closing
			return
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			// Pass a close on, so neither side waits on a half-gone peer.
			dst.Close()
			return
		}
	}
}

// freeze stops every connection open now.
func (p *freezeProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.frozen {
		select {
		case <-f:
		default:
			close(f)
		}
	}
}

func (p *freezeProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	close(p.closing)
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// h2Server is a TLS apiserver speaking HTTP/2 that answers each request with the
// next scripted handler, recording its protocol and the connection it came on.
type h2Server struct {
	*httptest.Server
	mu       sync.Mutex
	script   []http.HandlerFunc
	requests []string // "proto remoteAddr requestURI"
}

func newH2Server(t *testing.T, script ...http.HandlerFunc) *h2Server {
	s := &h2Server{script: script}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Proto+" "+r.RemoteAddr+" "+r.URL.RequestURI())
		var h http.HandlerFunc
		if len(s.script) > 0 {
			h, s.script = s.script[0], s.script[1:]
		}
		s.mu.Unlock()
		if h == nil {
			http.Error(w, "script exhausted", http.StatusServiceUnavailable)
			return
		}
		h(w, r)
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *h2Server) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func TestHTTP2PingsEndAWatchOnADeadConnection(t *testing.T) {
	a1, b2, c3 := realPodJSON(t, "a", "1"), realPodJSON(t, "b", "2"), realPodJSON(t, "c", "3")
	srv := newH2Server(t,
		answer(200, listBody("1", a1)),
		func(w http.ResponseWriter, r *http.Request) {
			chunks(false, event("ADDED", b2))(w, r)
			<-r.Context().Done()
		},
		// Held open: a watch that ended would be followed by a fourth request,
		// racing the test's stop.
		func(w http.ResponseWriter, r *http.Request) {
			chunks(false, event("ADDED", c3))(w, r)
			<-r.Context().Done()
		},
	)
	proxy := newFreezeProxy(t, srv.Listener.Addr().String())
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	c, err := rest.NewClient(rest.Config{
		Host:                 "https://" + proxy.ln.Addr().String(),
		TLS:                  rest.TLSConfig{CAData: ca},
		HTTP2ReadIdleTimeout: time.Second,
		HTTP2PingTimeout:     2 * time.Second, // a live connection answers well within it, even on a loaded machine
	})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
	lw.StallGrace = -1 // only the pings may notice the dead connection
	// Once the client has the event, the connection dies. A long watch timeout:
	// the server's end of the watch cannot be what ends it.
	opts := ReflectorOptions{MinWatchTimeout: time.Hour, Observe: func(s Step) {
		if s.Kind == StepResourceVersion && s.ResourceVersion == "2" {
			proxy.freeze()
		}
	}}
	reflectUntil(t, lw, opts, "2", "3")

	log := srv.log()
	if len(log) != 3 {
		t.Fatalf("requests %q: want a list, a watch and a resumed watch", log)
	}
	var protos, addrs, uris []string
	for _, l := range log {
		f := strings.Fields(l)
		protos, addrs, uris = append(protos, f[0]), append(addrs, f[1]), append(uris, f[2])
	}
	for i, p := range protos {
		if p != "HTTP/2.0" {
			t.Fatalf("request %d came over %s, want HTTP/2.0", i, p)
		}
	}
	if addrs[1] == addrs[2] {
		t.Fatalf("the resumed watch came on the dead connection %s, want a new one", addrs[2])
	}
	if !strings.Contains(uris[2], "watch=true") || !strings.Contains(uris[2], "resourceVersion=2") {
		t.Fatalf("third request %q: want a watch resumed from resourceVersion 2", uris[2])
	}
}
