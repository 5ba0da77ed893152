package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// writeKubeconfig writes a kubeconfig with two contexts on the fake
// apiserver: "good" with the right token, "bad" with a wrong one.
func writeKubeconfig(t *testing.T, api *fakeAPI) string {
	t.Helper()
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: good
clusters:
- name: fake
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: right
  user:
    token: %s
- name: wrong
  user:
    token: not-the-token
contexts:
- name: good
  context: {cluster: fake, user: right, namespace: kube-system}
- name: bad
  context: {cluster: fake, user: wrong}
`, api.srv.URL, api.caFile, clitest.Token)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConnectionFlags checks that kubectl's connection flags reach the wire.
func TestConnectionFlags(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		name string
		// args get the fake apiserver's kubeconfig file and URL and CA
		// file substituted for KUBECONFIG, URL and CA.
		args     []string
		wantCode int
		// retry, when set, is the failure the command must retry (and
		// be stopped in) rather than end on.
		retry string
		check func(t *testing.T, h http.Header)
	}{
		{name: "kubeconfig", args: []string{"--kubeconfig", "KUBECONFIG"}},
		{name: "kubeconfig from the environment", args: []string{"ENV"}},
		{name: "context", args: []string{"--kubeconfig", "KUBECONFIG", "--context", "bad"}, retry: "401 Unauthorized"},
		{name: "user", args: []string{"--kubeconfig", "KUBECONFIG", "--context", "bad", "--user", "right"}},
		{name: "token wins", args: []string{"--kubeconfig", "KUBECONFIG", "--context", "bad", "--token", clitest.Token}},
		{name: "insecure", args: []string{"--server", "URL", "--insecure-skip-tls-verify", "--token", clitest.Token}},
		{name: "impersonation", args: []string{"--server", "URL", "--certificate-authority", "CA", "--token", clitest.Token, "--as", "jane", "--as-group", "devs", "--as-group", "ops"},
			check: func(t *testing.T, h http.Header) {
				if got := h.Get("Impersonate-User"); got != "jane" {
					t.Errorf("Impersonate-User: got %q, want jane", got)
				}
				if diff := cmp.Diff([]string{"devs", "ops"}, h.Values("Impersonate-Group")); diff != "" {
					t.Errorf("Impersonate-Group (-want +got):\n%s", diff)
				}
			}},
		{name: "impersonation uid", args: []string{"--server", "URL", "--certificate-authority", "CA", "--token", clitest.Token, "--as", "jane", "--as-uid", "uid-42"},
			check: func(t *testing.T, h http.Header) {
				if got := h.Get("Impersonate-Uid"); got != "uid-42" {
					t.Errorf("Impersonate-Uid: got %q, want uid-42", got)
				}
			}},
		// The test server's certificate names 127.0.0.1 and example.com but
		// not localhost: only the flag's name lets the handshake succeed.
		{name: "tls server name", args: []string{"--server", "LOCALHOST_URL", "--certificate-authority", "CA", "--token", clitest.Token, "--tls-server-name", "example.com"}},
		{name: "user agent", args: []string{"--server", "URL", "--certificate-authority", "CA", "--token", clitest.Token},
			check: func(t *testing.T, h http.Header) {
				if got := h.Get("User-Agent"); !strings.HasPrefix(got, "podwatch/") {
					t.Errorf("User-Agent: got %q, want podwatch/...", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := startFakeAPI(t)
			kc := writeKubeconfig(t, api)
			args := []string{"watch", "--node", node1, "--max-events", "1"}
			for _, a := range tt.args {
				switch a {
				case "KUBECONFIG":
					a = kc
				case "URL":
					a = api.srv.URL
				case "LOCALHOST_URL":
					a = strings.Replace(api.srv.URL, "127.0.0.1", "localhost", 1)
				case "CA":
					a = api.caFile
				case "ENV":
					t.Setenv("KUBECONFIG", kc)
					continue
				}
				args = append(args, a)
			}
			if tt.retry != "" {
				runUntilRetry(t, tt.retry, args...)
			} else if r := run(t, args...); r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			hs := api.Headers()
			if len(hs) == 0 {
				t.Fatal("no request reached the server")
			}
			if tt.check != nil {
				tt.check(t, hs[0])
			}
		})
	}
}

// TestRequestTimeout checks that --request-timeout bounds a list that never
// answers, and that the timeout is retried. (That it never cuts a watch's body is rest's to test: a watch
// that outlives the timeout here could only be shown by waiting.)
func TestRequestTimeout(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	api.stallLists = true
	runUntilRetry(t, "no response headers within 200ms", append([]string{"watch", "--node", node1, "--watch-list=false", "--request-timeout", "200ms"}, api.connArgs()...)...)
}
