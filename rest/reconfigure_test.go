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
// could answer, and answers of every kind: only certificate failures and
// missing files need a configuration change; a server's answer, whatever its
// code, and a network failure may be cured by waiting.
func TestNeedsConfigChange(t *testing.T) {
	pki := newTestPKI(t)
	good := newTLSServer(t, pki, false)
	expiredPKI := newTestPKI(t)
	expired := expiredServer(t, expiredPKI)
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()

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
