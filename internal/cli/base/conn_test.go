package base

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// connWarnings resolves args as watch's connection flags and returns what that
// wrote on stderr.
func connWarnings(t *testing.T, args ...string) string {
	t.Helper()
	c := NewCommand("watch", "")
	var f ConnFlags
	f.Register(c)
	if _, err := c.Parse(io.Discard, args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	var stderr bytes.Buffer
	if _, err := f.RESTConfig("watch", Env{Stderr: &stderr}); err != nil {
		t.Fatalf("RESTConfig %q: %v", args, err)
	}
	return stderr.String()
}

// TestConnectionWarnings: one line on stderr when TLS verification is off, and
// one when a credential is configured for a plain-http server (which gets
// none of them), naming the kind of credential but never its value; nothing
// otherwise.
func TestConnectionWarnings(t *testing.T) {
	clitest.Isolate(t)
	dir := t.TempDir()
	cert, key, keyPEM := clitest.ClientPair(t, dir)
	ca := clitest.WriteFile(t, filepath.Join(dir, "ca.crt"), string(clitest.ReadFile(t, cert)))
	tokenFile := clitest.WriteFile(t, filepath.Join(dir, "token"), "t0ken-from-a-file-s3cr3t\n")
	kubeconfig := func(server, user string) string {
		return clitest.WriteFile(t, filepath.Join(t.TempDir(), "kubeconfig"), fmt.Sprintf(`apiVersion: v1
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
		{"https, verified", []string{"--server", "https://10.0.0.1:6443", "--certificate-authority", ca, "--token", clitest.Token}, ""},
		{"https, system roots", []string{"--server", "https://10.0.0.1:6443", "--token", clitest.Token}, ""},
		{"--insecure-skip-tls-verify", []string{"--server", "https://10.0.0.1:6443", "--insecure-skip-tls-verify", "--token", clitest.Token}, insecure},
		{"host without scheme, insecure", []string{"--server", "10.0.0.1:6443", "--insecure-skip-tls-verify"}, insecure},
		{"insecure in the kubeconfig", []string{"--kubeconfig", kubeconfig("https://10.0.0.1:6443", "insecure{token: "+clitest.Token+"}")}, insecure},
		{"http, no credential", []string{"--server", "http://10.0.0.1:8080"}, ""},
		{"http, token", []string{"--server", "http://10.0.0.1:8080", "--token", clitest.Token}, plainHTTP + "the bearer token is not sent, as it would travel in clear\n"},
		{"http, client certificate", []string{"--server", "http://10.0.0.1:8080", "--client-certificate", cert, "--client-key", key},
			plainHTTP + "the client certificate cannot be used without TLS\n"},
		{"http, token and certificate", []string{"--server", "http://10.0.0.1:8080/prefix?x", "--token", clitest.Token, "--client-certificate", cert, "--client-key", key},
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
			for _, secret := range append(clitest.SecretsOf(keyPEM), clitest.Token, "t0ken-from-a-file-s3cr3t", "pa55w0rd-s3cr3t") {
				if strings.Contains(got, secret) {
					t.Fatalf("the warning prints a credential: %q", got)
				}
			}
		})
	}
}
