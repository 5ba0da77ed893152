package rest

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/resthook"
)

// expiredServer serves with a certificate of pki's CA that expired an hour ago.
func expiredServer(t *testing.T, pki *testPKI) *httptest.Server {
	t.Helper()
	ca, caKey, caPEM := newCA(t, "expiring CA")
	pki.caPEM = caPEM
	key := newKey(t)
	tmpl := template("apiserver")
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are the point
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestNeedsConfigChange sends real requests that fail before the server
// could answer, and answers of every kind: only certificate failures, a
// plain HTTP server asked in https and missing files need a configuration
// change; a server's answer, whatever its code, and a network failure may be
// cured by waiting.
func TestNeedsConfigChange(t *testing.T) {
	pki := newTestPKI(t)
	good := newTLSServer(t, pki, false)
	expiredPKI := newTestPKI(t)
	expired := expiredServer(t, expiredPKI)
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)

	request := func(cfg Config) error {
		c := mustClient(t, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.Get().Resource("pods").Do(ctx)
		if err == nil {
			t.Fatalf("a request to %s succeeded, want a failure", cfg.Host)
		}
		return err
	}
	for _, tc := range []struct {
		name string
		err  func() error
		want bool
	}{
		{"unknown authority", func() error { return request(Config{Host: good.URL}) }, true},
		{"another authority", func() error { return request(Config{Host: good.URL, TLS: TLSConfig{CAData: pki.otherCAPEM}}) }, true},
		{"name mismatch", func() error {
			return request(Config{Host: good.URL, TLS: TLSConfig{CAData: pki.caPEM, ServerName: "other.test"}})
		}, true},
		{"expired", func() error { return request(Config{Host: expired.URL, TLS: TLSConfig{CAData: expiredPKI.caPEM}}) }, true},
		{"missing token file", func() error {
			return request(Config{Host: good.URL, TLS: TLSConfig{CAData: pki.caPEM}, BearerTokenFile: filepath.Join(t.TempDir(), "gone")})
		}, true},
		{"plain http answering https", func() error { return request(Config{Host: "https://" + plain.Listener.Addr().String()}) }, true},
		{"refused connection", func() error { return request(Config{Host: refused.URL}) }, false},
		{"unknown host", func() error { return request(Config{Host: "http://podwatch-no-such-host.invalid"}) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if got := NeedsConfigChange(err); got != tc.want {
				t.Fatalf("NeedsConfigChange(%v) = %t, want %t", err, got, tc.want)
			}
		})
	}
	for _, code := range []int{400, 401, 403, 404, 408, 410, 429, 500, 502, 503} {
		err := fmt.Errorf("list pods: %w", NewStatusError("GET x", code, nil, []byte("<html>")))
		if NeedsConfigChange(err) {
			t.Errorf("NeedsConfigChange(%d) = true, want false: a server's answer may change", code)
		}
	}
	if NeedsConfigChange(errors.New("stream ended")) {
		t.Error("NeedsConfigChange of a bare error = true, want false")
	}
}

// TestFailurePredicates sends requests that fail in the ways a user's
// configuration causes, and checks that each predicate names its own: a
// plain HTTP server asked in https, a host DNS does not know, and neither
// for a refused connection.
func TestFailurePredicates(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()
	// The resolver's answer, as net.Dialer gives it, without asking a real
	// DNS server.
	unknownHost := Config{Host: "http://no-such-host.test"}
	unknownHost.hooks.WrapDial = func(resthook.DialFunc) resthook.DialFunc {
		return func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "no-such-host.test", IsNotFound: true}}
		}
	}
	for _, tc := range []struct {
		name               string
		cfg                Config
		scheme, unknownDNS bool
	}{
		{"https to plain http", Config{Host: "https://" + plain.Listener.Addr().String()}, true, false},
		{"unknown host", unknownHost, false, true},
		{"refused", Config{Host: refused.URL}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := mustClient(t, tc.cfg).Get().Resource("pods").Do(ctx)
			if err == nil {
				t.Fatal("the request succeeded, want a failure")
			}
			err = fmt.Errorf("list pods: %w", err)
			if got := IsSchemeMismatch(err); got != tc.scheme {
				t.Errorf("IsSchemeMismatch(%v) = %t, want %t", err, got, tc.scheme)
			}
			if got := IsHostNotFound(err); got != tc.unknownDNS {
				t.Errorf("IsHostNotFound(%v) = %t, want %t", err, got, tc.unknownDNS)
			}
		})
	}
	if !IsSchemeMismatch(tls.RecordHeaderError{RecordHeader: [5]byte{'H', 'T', 'T', 'P', '/'}}) {
		t.Error("IsSchemeMismatch of the transport's own error = false, want true")
	}
	if IsSchemeMismatch(tls.RecordHeaderError{RecordHeader: [5]byte{0x16, 3, 1, 0, 0}}) {
		t.Error("IsSchemeMismatch of another bad record header = true, want false")
	}
}
