package kubeconfig

import (
	"bufio"
	"context"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
)

// The name the tests give the apiserver. A proxy is never used for loopback
// hosts, so the server needs a name; httptest's certificate is valid for
// this one, and the test's proxy and dialer send it to 127.0.0.1.
const proxiedHost = "example.com"

// connectProxy is a CONNECT proxy on loopback that tunnels to the test's
// server whatever name is asked, and records each tunnel's target.
type connectProxy struct {
	t       *testing.T
	ln      net.Listener
	backend string // host:port on loopback the tunnels lead to

	mu      sync.Mutex
	targets []string
	conns   []net.Conn
	wg      sync.WaitGroup
}

func startConnectProxy(t *testing.T, backend string) *connectProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{t: t, ln: ln, backend: backend}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *connectProxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *connectProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.track(c)
		p.wg.Go(func() { p.serve(c) })
	}
}

// serve answers one CONNECT and then copies bytes both ways until either side
// closes.
func (p *connectProxy) serve(client net.Conn) {
	defer client.Close()
	br := bufio.NewReader(client)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		io.WriteString(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, req.Host)
	p.mu.Unlock()
	server, err := net.Dial("tcp", p.backend)
	if err != nil {
		io.WriteString(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	p.track(server)
	defer server.Close()
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(server, br) // br holds anything the client sent early
		server.Close()
	}()
	io.Copy(client, server)
	client.Close()
	<-done
}

func (p *connectProxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

// close stops accepting, cuts every tunnel and waits for their goroutines.
func (p *connectProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *connectProxy) tunnels() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// proxiedServer is an https server reached as https://example.com:PORT.
type proxiedServer struct {
	srv   *httptest.Server
	host  string // example.com:PORT
	caPEM []byte
}

func startProxiedServer(t *testing.T) *proxiedServer {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return &proxiedServer{
		srv:   srv,
		host:  net.JoinHostPort(proxiedHost, port),
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
	}
}

// dialLoopback makes the client's own connections to example.com go to
// 127.0.0.1, so a request that bypasses the proxy reaches the server too and
// only the proxy's count tells the two paths apart. The proxy decision is
// left to the code under test.
func dialLoopback(dial resthook.DialFunc) resthook.DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && host == proxiedHost {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return dial(ctx, network, addr)
	}
}

// get sends one request with a podwatch client built from cc, as the
// program builds it.
func (s *proxiedServer) get(t *testing.T, cc *ClientConfig) {
	t.Helper()
	cfg, err := cc.RESTConfig()
	if err != nil {
		t.Fatalf("RESTConfig: %v", err)
	}
	resthook.On(&cfg).WrapDial = dialLoopback
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body, err := client.Get().AbsPath("/api").Do(ctx)
	if err != nil || string(body) != "ok" {
		t.Fatalf("GET /api = %q, %v; want ok", body, err)
	}
}

// setProxyEnv sets the proxy variables in both spellings, which the
// environment reader both honours.
func setProxyEnv(t *testing.T, httpsProxy, noProxy string) {
	for _, kv := range [][2]string{{"HTTPS_PROXY", httpsProxy}, {"NO_PROXY", noProxy}, {"HTTP_PROXY", ""}} {
		t.Setenv(kv[0], kv[1])
		t.Setenv(strings.ToLower(kv[0]), kv[1])
	}
}

func kubeconfigFor(s *proxiedServer, proxyURL string) *Config {
	return &Config{
		CurrentContext: "c",
		Clusters: map[string]*Cluster{"c": {
			Server: "https://" + s.host, CertificateAuthorityData: s.caPEM, ProxyURL: proxyURL,
		}},
		Contexts: map[string]*Context{"c": {Cluster: "c"}},
	}
}

// TestProxyTunnels sends https requests the way the program does, through a
// real CONNECT proxy when the environment or the kubeconfig asks for one, and
// counts the tunnels the proxy opened.
func TestProxyTunnels(t *testing.T) {
	tests := []struct {
		name                string
		httpsProxy, noProxy string // "PROXY" is the proxy's URL
		proxyURL            string // the cluster's proxy-url
		wantTunnel          bool
	}{
		{name: "HTTPS_PROXY", httpsProxy: "PROXY", wantTunnel: true},
		{name: "NO_PROXY names the host", httpsProxy: "PROXY", noProxy: proxiedHost},
		{name: "NO_PROXY names its domain", httpsProxy: "PROXY", noProxy: ".com"},
		{name: "NO_PROXY names another host", httpsProxy: "PROXY", noProxy: "other.example", wantTunnel: true},
		{name: "no proxy set"},
		{name: "proxy-url", proxyURL: "PROXY", wantTunnel: true},
		// The kubeconfig's proxy-url wins over the environment, NO_PROXY included.
		{name: "proxy-url over NO_PROXY", noProxy: proxiedHost, proxyURL: "PROXY", wantTunnel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startProxiedServer(t)
			proxy := startConnectProxy(t, srv.srv.Listener.Addr().String())
			sub := func(s string) string { return strings.ReplaceAll(s, "PROXY", proxy.URL()) }
			setProxyEnv(t, sub(tt.httpsProxy), tt.noProxy)
			cc, err := kubeconfigFor(srv, sub(tt.proxyURL)).ClientConfig(Options{})
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			srv.get(t, cc)
			var want []string
			if tt.wantTunnel {
				want = []string{srv.host}
			}
			if diff := cmp.Diff(want, proxy.tunnels()); diff != "" {
				t.Errorf("tunnels the proxy opened (-want +got):\n%s", diff)
			}
		})
	}
}
