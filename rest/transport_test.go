package rest

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTransportOptions(t *testing.T) {
	pki := newTestPKI(t)
	mtls := newTLSServer(t, pki, true)
	pair, err := tls.X509KeyPair(pki.clientCert, pki.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	var hookCalls atomic.Int32
	hook := func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		hookCalls.Add(1)
		return &pair, nil
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"client certificate from a hook", Config{TLS: TLSConfig{CAData: pki.caPEM, GetClientCertificate: hook}}, "HTTP/2.0 system:node:node-a"},
		{"HTTP/1.1 forced", Config{DisableHTTP2: true, TLS: TLSConfig{CAData: pki.caPEM, CertData: pki.clientCert, KeyData: pki.clientKey}}, "HTTP/1.1 system:node:node-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Host = mtls.URL
			b, err := mustClient(t, tc.cfg).Get().Resource("pods").Do(context.Background())
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if string(b) != tc.want {
				t.Fatalf("answer = %q, want %q", b, tc.want)
			}
		})
	}
	if hookCalls.Load() == 0 {
		t.Fatalf("GetClientCertificate was never asked")
	}
}

func TestProxyIsUsed(t *testing.T) {
	var seen atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A forward proxy receives the absolute URL of the target.
		seen.Store(r.URL.String())
		w.Write([]byte("via proxy"))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	c := mustClient(t, Config{Host: "http://apiserver.invalid:6443", Proxy: http.ProxyURL(pu)})
	b, err := c.Get().Resource("pods").Do(context.Background())
	if err != nil {
		t.Fatalf("Do through the proxy: %v", err)
	}
	if string(b) != "via proxy" || seen.Load() != "http://apiserver.invalid:6443/api/v1/pods" {
		t.Fatalf("got %q with the proxy seeing %v", b, seen.Load())
	}
}

// TestProxyFromEnvironmentByDefault checks that a Config without Proxy follows
// the environment as NewClient finds it, and NO_PROXY too.
func TestProxyFromEnvironmentByDefault(t *testing.T) {
	var seen atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		w.Write([]byte("via proxy"))
	}))
	defer proxy.Close()
	for _, tc := range []struct {
		noProxy string
		want    int64 // requests the proxy saw
	}{{"", 1}, {"apiserver.invalid", 0}} {
		t.Run("NO_PROXY="+tc.noProxy, func(t *testing.T) {
			seen.Store(0)
			for _, k := range []string{"HTTP_PROXY", "http_proxy"} {
				t.Setenv(k, proxy.URL)
			}
			for _, k := range []string{"NO_PROXY", "no_proxy"} {
				t.Setenv(k, tc.noProxy)
			}
			c := mustClient(t, Config{Host: "http://apiserver.invalid:6443", MaxRetries: -1})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			b, err := c.Get().Resource("pods").Do(ctx)
			if tc.want == 1 && (err != nil || string(b) != "via proxy") {
				t.Fatalf("Do through the proxy: %q, %v", b, err)
			}
			if got := seen.Load(); got != tc.want {
				t.Errorf("the proxy saw %d requests, want %d", got, tc.want)
			}
		})
	}
}

// A server that accepts a watch and never answers its headers must not hold the
// client forever: the transport's response-header bound ends the attempt.
func TestResponseHeaderTimeoutEndsSilentWatch(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := mustClient(t, Config{Host: srv.URL, ResponseHeaderTimeout: 50 * time.Millisecond, MaxRetries: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body, err := c.Get().Resource("pods").Watch(true).Stream(ctx)
	if err == nil {
		body.Body.Close()
		t.Fatalf("Stream of a watch whose headers never come succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("Stream returned only when the test's own deadline passed: %v", err)
	}
	if !strings.Contains(err.Error(), "/api/v1/pods") {
		t.Fatalf("error %q does not name the request", err)
	}
}
