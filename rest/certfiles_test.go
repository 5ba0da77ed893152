package rest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClientCertificateRotation rotates the client certificate files under a
// running client, in the ways rotation happens on disk, and checks that the
// next connection presents the new certificate.
func TestClientCertificateRotation(t *testing.T) {
	pki := newTestPKI(t)
	ca, caKey := pki.ca, pki.caKey
	srv := newTLSServer(t, pki, true)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, path string, data []byte)
	}{
		{"rewritten in place", writeInPlace},
		{"renamed over", renameOver},
		{"symlink moved", moveSymlink},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
			tc.write(t, certFile, pki.clientCert)
			tc.write(t, keyFile, pki.clientKey)
			c := mustClient(t, Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM, CertFile: certFile, KeyFile: keyFile}})
			whoAmI(t, c, "HTTP/2.0 system:node:node-a")

			cert, key := newLeaf(t, ca, caKey, "system:node:node-a-rotated", x509ClientAuth)
			tc.write(t, certFile, cert)
			tc.write(t, keyFile, key)
			c.CloseIdleConnections()
			whoAmI(t, c, "HTTP/2.0 system:node:node-a-rotated")
		})
	}
}

// TestClientCertificateHalfRotated checks that a rotation caught between its
// two writes keeps the last good pair, and that the completed one is then
// taken up.
func TestClientCertificateHalfRotated(t *testing.T) {
	pki := newTestPKI(t)
	srv := newTLSServer(t, pki, true)
	certFile := writeFile(t, "client.crt", pki.clientCert)
	keyFile := writeFile(t, "client.key", pki.clientKey)
	c := mustClient(t, Config{Host: srv.URL, TLS: TLSConfig{CAData: pki.caPEM, CertFile: certFile, KeyFile: keyFile}})
	whoAmI(t, c, "HTTP/2.0 system:node:node-a")

	cert, key := newLeaf(t, pki.ca, pki.caKey, "system:node:node-a-rotated", x509ClientAuth)
	writeInPlace(t, certFile, cert) // its key is not there yet
	c.CloseIdleConnections()
	whoAmI(t, c, "HTTP/2.0 system:node:node-a")

	writeInPlace(t, keyFile, key)
	c.CloseIdleConnections()
	whoAmI(t, c, "HTTP/2.0 system:node:node-a-rotated")
}

// whoAmI asks newTLSServer which certificate the client presented.
func whoAmI(t *testing.T, c *Client, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := c.Get().AbsPath("/").Do(ctx)
	if err != nil {
		t.Fatalf("GET /: %v", err)
	}
	if string(b) != want {
		t.Fatalf("server saw %q, want %q", b, want)
	}
}

func writeInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// renameOver writes a new file beside path and renames it over path, as an
// atomic writer does.
func renameOver(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".new"
	writeInPlace(t, tmp, data)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// moveSymlink makes path a symlink to a new versioned file, as the kubelet
// does with kubelet-client-current.pem.
func moveSymlink(t *testing.T, path string, data []byte) {
	t.Helper()
	target := path + "-" + time.Now().Format("20060102T150405.000000000")
	writeInPlace(t, target, data)
	link := path + ".link"
	if err := os.Symlink(filepath.Base(target), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(link, path); err != nil {
		t.Fatal(err)
	}
}
