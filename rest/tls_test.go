package rest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testPKI is a throwaway CA with a server and a client certificate, all PEM.
type testPKI struct {
	caPEM                 []byte
	serverCert            tls.Certificate
	clientCert, clientKey []byte
	otherCAPEM            []byte
	clientPool            *x509.CertPool
	// ca and caKey sign more client certificates.
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
}

const x509ClientAuth = x509.ExtKeyUsageClientAuth

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	ca, caKey, caPEM := newCA(t, "podwatch test CA")
	_, _, otherPEM := newCA(t, "some other CA")
	srvPEM, srvKeyPEM := newLeaf(t, ca, caKey, "apiserver", x509.ExtKeyUsageServerAuth)
	srvCert, err := tls.X509KeyPair(srvPEM, srvKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cliPEM, cliKeyPEM := newLeaf(t, ca, caKey, "system:node:node-a", x509.ExtKeyUsageClientAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testPKI{caPEM: caPEM, serverCert: srvCert, clientCert: cliPEM, clientKey: cliKeyPEM, otherCAPEM: otherPEM, clientPool: pool, ca: ca, caKey: caKey}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var serial atomic.Int64

func template(cn string) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
}

func newCA(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := template(cn)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func newLeaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := template(cn)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	tmpl.DNSNames = []string{"apiserver.test"}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// newTLSServer starts an HTTP/2-capable TLS server with pki's server certificate,
// requiring a client certificate signed by pki's CA when requireClient is set. It
// answers with the protocol and the client certificate's name.
func newTLSServer(t *testing.T, pki *testPKI, requireClient bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := "anonymous"
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			who = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		w.Write([]byte(r.Proto + " " + who))
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are expected here
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.serverCert}}
	if requireClient {
		srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
		srv.TLS.ClientCAs = pki.clientPool
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTLS(t *testing.T) {
	pki := newTestPKI(t)
	open := newTLSServer(t, pki, false)
	mtls := newTLSServer(t, pki, true)
	caFile := writeFile(t, "ca.crt", pki.caPEM)
	certFile := writeFile(t, "client.crt", pki.clientCert)
	keyFile := writeFile(t, "client.key", pki.clientKey)

	for _, tc := range []struct {
		name    string
		srv     *httptest.Server
		tls     TLSConfig
		want    string // the answer, or "" for a failure
		wantErr func(error) bool
	}{
		{"unknown CA fails by default", open, TLSConfig{}, "", isUnknownAuthority},
		{"wrong CA fails", open, TLSConfig{CAData: pki.otherCAPEM}, "", isUnknownAuthority},
		{"CA data", open, TLSConfig{CAData: pki.caPEM}, "HTTP/2.0 anonymous", nil},
		{"CA file", open, TLSConfig{CAFile: caFile}, "HTTP/2.0 anonymous", nil},
		{"server name checked", open, TLSConfig{CAData: pki.caPEM, ServerName: "other.test"}, "", isHostnameError},
		{"server name override", open, TLSConfig{CAData: pki.caPEM, ServerName: "apiserver.test"}, "HTTP/2.0 anonymous", nil},
		{"insecure", open, TLSConfig{Insecure: true}, "HTTP/2.0 anonymous", nil},
		{"client cert files", mtls, TLSConfig{CAFile: caFile, CertFile: certFile, KeyFile: keyFile}, "HTTP/2.0 system:node:node-a", nil},
		{"client cert data", mtls, TLSConfig{CAData: pki.caPEM, CertData: pki.clientCert, KeyData: pki.clientKey}, "HTTP/2.0 system:node:node-a", nil},
		// Under TLS 1.3 the client learns of the refusal as an alert or a reset,
		// whichever comes first.
		{"no client cert rejected", mtls, TLSConfig{CAData: pki.caPEM}, "", func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustClient(t, Config{Host: tc.srv.URL, TLS: tc.tls})
			b, err := c.Get().Resource("pods").Do(context.Background())
			if tc.wantErr != nil {
				if err == nil || !tc.wantErr(err) {
					t.Fatalf("Do: got %q, %v; want a TLS failure", b, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if string(b) != tc.want {
				t.Errorf("answer = %q, want %q", b, tc.want)
			}
		})
	}
}

func isUnknownAuthority(err error) bool {
	var ua x509.UnknownAuthorityError
	return errors.As(err, &ua)
}

func isHostnameError(err error) bool {
	var he x509.HostnameError
	return errors.As(err, &he)
}

func TestTLSConfigErrors(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.crt")
	garbage := writeFile(t, "garbage.crt", []byte("not a certificate"))
	certFile := writeFile(t, "client.crt", pki.clientCert)
	for _, tc := range []struct {
		name   string
		tls    TLSConfig
		wantIn string
	}{
		{"missing CA file", TLSConfig{CAFile: missing}, missing},
		{"CA file without PEM", TLSConfig{CAFile: garbage}, garbage},
		{"CA data without PEM", TLSConfig{CAData: []byte("junk")}, "inline CA data"},
		{"cert without key", TLSConfig{CertFile: certFile}, "both a certificate and a key"},
		{"key that does not match", TLSConfig{CertFile: certFile, KeyFile: garbage}, garbage},
		{"missing key file", TLSConfig{CertFile: certFile, KeyFile: missing}, missing},
		{"CA with insecure", TLSConfig{CAData: pki.caPEM, Insecure: true}, "Insecure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewClient(Config{Host: "https://h", TLS: tc.tls})
			if err == nil {
				t.Fatal("NewClient succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q does not name %q", err, tc.wantIn)
			}
		})
	}
}
