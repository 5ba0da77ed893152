// Package clitest holds what the tests of several podwatch command
// packages share: an output buffer that can be waited on, the bound of
// every wait, the credentials the tests look for in every output, and a
// kubeconfig kept out of their way. Only tests import it.
package clitest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wait bounds every wait of the tests.
const Wait = 30 * time.Second

// Token is the bearer token the tests' servers want; no output may hold it.
const Token = "s3cr3t-t0ken-do-not-print"

// Seen is the injected clock: every kubernetes.io/config.seen has this value.
var Seen = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// SyncBuffer is a concurrency-safe output buffer that can wait for a string.
type SyncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func NewSyncBuffer() *SyncBuffer { return &SyncBuffer{changed: make(chan struct{})} }

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor waits until the buffer holds sub; it may be called from any
// goroutine.
func (s *SyncBuffer) WaitFor(sub string) error {
	return s.waitUntil(func(b string) bool { return strings.Contains(b, sub) }, fmt.Sprintf("%q", sub))
}

// WaitForMatch waits until re matches what the buffer holds: a line of
// podwatch's text output, whose columns' widths depend on the lines
// before it; it may be called from any goroutine.
func (s *SyncBuffer) WaitForMatch(re *regexp.Regexp) error {
	return s.waitUntil(re.MatchString, "/"+re.String()+"/")
}

func (s *SyncBuffer) waitUntil(has func(string) bool, what string) error {
	deadline := time.After(Wait)
	for {
		s.mu.Lock()
		ok, ch := has(s.b.String()), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-deadline:
			return fmt.Errorf("timed out waiting for %s; have:\n%s", what, s.String())
		}
	}
}

// WaitInOrder waits for each of subs on b, the next after the last found.
func (b *SyncBuffer) WaitInOrder(subs []string) error {
	deadline := time.After(Wait)
	for i := 0; i < len(subs); {
		s := b.String()
		at := 0
		ok := true
		for j := 0; j <= i && ok; j++ {
			k := strings.Index(s[at:], subs[j])
			ok = k >= 0
			at += k + len(subs[j])
		}
		if ok {
			i++
			continue
		}
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return fmt.Errorf("stderr never held %q in that order", subs)
		}
	}
	return nil
}

// Isolate keeps the user's kubeconfig and terminal width out of the tests.
func Isolate(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	// The terminal the tests run from must not wrap what they read.
	t.Setenv("COLUMNS", "")
}

// ClientPair writes a client certificate and its key to dir and returns their
// paths and the key's PEM, the secret the tests look for.
func ClientPair(t *testing.T, dir string) (certFile, keyFile string, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "system:node:node-1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, keyPEM
}

// SecretsOf is what must never be printed of a key: its PEM lines, each long
// enough not to turn up by chance.
func SecretsOf(keyPEM []byte) []string {
	var out []string
	for _, line := range strings.Split(string(keyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	return out
}

// WriteFile writes content to path (executable, for a plugin) and returns
// path.
func WriteFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadFile is the content of path.
func ReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
