package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientPair writes a client certificate and its key to dir and returns their
// paths and the key's PEM, the secret the tests look for.
func clientPair(t *testing.T, dir string) (certFile, keyFile string, keyPEM []byte) {
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

// secretsOf is what must never be printed of a key: its PEM lines, each long
// enough not to turn up by chance.
func secretsOf(keyPEM []byte) []string {
	var out []string
	for _, line := range strings.Split(string(keyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	return out
}

// connWarnings resolves args as watch's connection flags and returns what that
// wrote on stderr.
func connWarnings(t *testing.T, args ...string) string {
	t.Helper()
	c := newCommand("watch", "")
	var f connFlags
	f.register(c)
	if _, err := c.parse(io.Discard, args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	var stderr bytes.Buffer
	if _, err := f.restConfig("watch", Env{Stderr: &stderr}); err != nil {
		t.Fatalf("restConfig %q: %v", args, err)
	}
	return stderr.String()
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConnectionWarnings: one line on stderr when TLS verification is off, and
// one when a credential is configured for a plain-http server (which gets
// none of them), naming the kind of credential but never its value; nothing
// otherwise.
func TestConnectionWarnings(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cert, key, keyPEM := clientPair(t, dir)
	ca := writeFile(t, filepath.Join(dir, "ca.crt"), string(mustReadFile(t, cert)))
	tokenFile := writeFile(t, filepath.Join(dir, "token"), "t0ken-from-a-file-s3cr3t\n")
	kubeconfig := func(server, user string) string {
		return writeFile(t, filepath.Join(t.TempDir(), "kubeconfig"), fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: %q%s}
users:
- name: u
  user: %s
contexts:
- name: c
  context: {cluster: k, user: u}
`, server, map[bool]string{true: ", insecure-skip-tls-verify: true"}[strings.HasPrefix(user, "insecure")], strings.TrimPrefix(user, "insecure")))
	}
	const (
		insecure  = "podwatch: warning: TLS verification is off (insecure-skip-tls-verify): the certificate of https://10.0.0.1:6443 is not checked, so anyone on the way can pose as it\n"
		plainHTTP = "podwatch: warning: http://10.0.0.1:8080 is plain http, not https: "
	)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"https, verified", []string{"--server", "https://10.0.0.1:6443", "--certificate-authority", ca, "--token", testToken}, ""},
		{"https, system roots", []string{"--server", "https://10.0.0.1:6443", "--token", testToken}, ""},
		{"--insecure-skip-tls-verify", []string{"--server", "https://10.0.0.1:6443", "--insecure-skip-tls-verify", "--token", testToken}, insecure},
		{"host without scheme, insecure", []string{"--server", "10.0.0.1:6443", "--insecure-skip-tls-verify"}, insecure},
		{"insecure in the kubeconfig", []string{"--kubeconfig", kubeconfig("https://10.0.0.1:6443", "insecure{token: "+testToken+"}")}, insecure},
		{"http, no credential", []string{"--server", "http://10.0.0.1:8080"}, ""},
		{"http, token", []string{"--server", "http://10.0.0.1:8080", "--token", testToken}, plainHTTP + "the bearer token is not sent, as it would travel in clear\n"},
		{"http, client certificate", []string{"--server", "http://10.0.0.1:8080", "--client-certificate", cert, "--client-key", key},
			plainHTTP + "the client certificate cannot be used without TLS\n"},
		{"http, token and certificate", []string{"--server", "http://10.0.0.1:8080/prefix?x", "--token", testToken, "--client-certificate", cert, "--client-key", key},
			plainHTTP + "the bearer token is not sent, as it would travel in clear; the client certificate cannot be used without TLS\n"},
		{"http, token file in the kubeconfig", []string{"--kubeconfig", kubeconfig("http://10.0.0.1:8080", "{tokenFile: "+tokenFile+"}")}, plainHTTP + "the bearer token is not sent, as it would travel in clear\n"},
		{"http, basic auth", []string{"--kubeconfig", kubeconfig("http://10.0.0.1:8080", "{username: admin, password: pa55w0rd-s3cr3t}")}, plainHTTP + "the basic-auth password is not sent, as it would travel in clear\n"},
		{"http, exec plugin", []string{"--kubeconfig", kubeconfig("http://10.0.0.1:8080", "{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: Never}}")},
			plainHTTP + "the exec plugin's credential is not sent, as it would travel in clear\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := connWarnings(t, tc.args...)
			if got != tc.want {
				t.Fatalf("stderr %q, want %q", got, tc.want)
			}
			for _, secret := range append(secretsOf(keyPEM), testToken, "t0ken-from-a-file-s3cr3t", "pa55w0rd-s3cr3t") {
				if strings.Contains(got, secret) {
					t.Fatalf("the warning prints a credential: %q", got)
				}
			}
		})
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTLSVerificationIsOn: without the server's CA the handshake is refused;
// only --insecure-skip-tls-verify gets through, and says so.
func TestTLSVerificationIsOn(t *testing.T) {
	isolate(t)
	api := startFakeAPI(t)
	r := run(t, "watch", "--node", node1, "--max-events", node1Count, "--server", api.srv.URL, "--token", testToken)
	if r.code == 0 || !strings.Contains(r.stderr, "certificate") {
		t.Fatalf("an unverified server was accepted: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if len(api.Requests()) != 0 {
		t.Fatalf("requests reached a server whose certificate was not trusted: %v", api.Requests())
	}
	r = mustRun(t, "watch", "--node", node1, "--max-events", node1Count, "--server", api.srv.URL, "--token", testToken, "--insecure-skip-tls-verify")
	if n := strings.Count(r.stderr, "TLS verification is off"); n != 1 {
		t.Fatalf("--insecure-skip-tls-verify warned %d times, want once:\n%s", n, r.stderr)
	}
}

// TestNoCredentialInAnyOutput runs podwatch fully with a bearer token, a client
// key and an exec plugin's token, at -v 8 (with --trace too once it exists),
// records a fixture, and fails on purpose, then greps every channel for the
// credentials: stdout, stderr, the trace, the recording, the error messages.
func TestNoCredentialInAnyOutput(t *testing.T) {
	isolate(t)
	api := startFakeAPI(t)
	dir := t.TempDir()
	cert, key, keyPEM := clientPair(t, dir)
	secrets := append(secretsOf(keyPEM), testToken)
	// The plugin answers with the token the fake apiserver wants, so its
	// credential travels the whole way.
	plugin := writeFile(t, filepath.Join(dir, "plugin.sh"), "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\""+testToken+"\"}}'\n")
	execConfig := writeFile(t, filepath.Join(dir, "kubeconfig"), fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: %q, certificate-authority: %q}
users:
- name: u
  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: Never}}
contexts:
- name: c
  context: {cluster: k, user: u}
`, api.srv.URL, api.caFile, plugin))
	notKey := writeFile(t, filepath.Join(dir, "not-a-key"), "this is not PEM but "+testToken+"\n")

	base := []string{"--node", node1, "--max-events", node1Count, "-v", "8", "-o", "json"}
	withCert := append([]string{"--client-certificate", cert, "--client-key", key}, api.connArgs()...)
	traceArgs, traceFile := traceFlag(t, dir)
	var outputs []string
	check := func(what string, r result, wantCode bool) {
		t.Helper()
		if wantCode && r.code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", what, r.code, r.stderr)
		}
		if !wantCode && r.code == 0 {
			t.Fatalf("%s: exit 0, want a failure", what)
		}
		outputs = append(outputs, what+" stdout", r.stdout, what+" stderr", r.stderr)
	}
	check("watch", run(t, append(append(append([]string{"watch"}, base...), traceArgs...), withCert...)...), true)
	check("watch with an exec plugin", run(t, append(append([]string{"watch", "--kubeconfig", execConfig}, base...), traceArgs...)...), true)
	fixtureDir := filepath.Join(dir, "fixture")
	check("record", run(t, append(append([]string{"record", "--out", fixtureDir}, base...), withCert...)...), true)
	check("wrong CA", run(t, append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", testToken,
		"--certificate-authority", cert, "--client-certificate", cert, "--client-key", key)...), false)
	check("a key that is not one", run(t, append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", testToken,
		"--certificate-authority", api.caFile, "--client-certificate", cert, "--client-key", notKey)...), false)
	// A refused token is retried (it may not be bound to a role yet); its
	// output is read up to the first retry.
	refused := runUntilRetry(t, "401", append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", testToken+"-wrong",
		"--certificate-authority", api.caFile)...)
	outputs = append(outputs, "refused token stdout", refused.stdout, "refused token stderr", refused.stderr)

	files := 0
	for _, root := range []string{fixtureDir, traceFile} {
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			outputs = append(outputs, path, string(mustReadFile(t, path)))
			return nil
		})
		if err != nil {
			t.Fatalf("read %s: %v", root, err)
		}
	}
	if files == 0 {
		t.Fatalf("the recording wrote no file")
	}
	for i := 0; i < len(outputs); i += 2 {
		for _, s := range secrets {
			if strings.Contains(outputs[i+1], s) {
				t.Fatalf("%s holds a credential (%.12s...):\n%s", outputs[i], s, outputs[i+1])
			}
		}
	}
	// The -v 8 log is there to be grepped: it shows the masked header.
	if !strings.Contains(outputs[3], "Authorization: Bearer <masked>") {
		t.Fatalf("the -v 8 log shows no masked Authorization header:\n%s", outputs[3])
	}
}

// traceFlag returns --trace for watch once the command has one (issue 8
// adds it), writing to a file under dir when it takes one.
func traceFlag(t *testing.T, dir string) (args []string, file string) {
	c := newCommand("watch", watchUsage)
	var f watchFlags
	f.register(c, true)
	fl := c.fs.Lookup("trace")
	if fl == nil {
		return nil, ""
	}
	if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return []string{"--trace"}, ""
	}
	file = filepath.Join(dir, "trace.out")
	return []string{"--trace=" + file}, file
}
