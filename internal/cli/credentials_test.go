package cli

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// TestTLSVerificationIsOn: without the server's CA the handshake is refused;
// only --insecure-skip-tls-verify gets through, and says so.
func TestTLSVerificationIsOn(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	r := run(t, "watch", "--node", node1, "--max-events", node1Count, "--server", api.srv.URL, "--token", clitest.Token)
	if r.code == 0 || !strings.Contains(r.stderr, "certificate") {
		t.Fatalf("an unverified server was accepted: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if len(api.Requests()) != 0 {
		t.Fatalf("requests reached a server whose certificate was not trusted: %v", api.Requests())
	}
	r = mustRun(t, "watch", "--node", node1, "--max-events", node1Count, "--server", api.srv.URL, "--token", clitest.Token, "--insecure-skip-tls-verify")
	if n := strings.Count(r.stderr, "TLS verification is off"); n != 1 {
		t.Fatalf("--insecure-skip-tls-verify warned %d times, want once:\n%s", n, r.stderr)
	}
}

// TestNoCredentialInAnyOutput runs podwatch fully with a bearer token, a client
// key and an exec plugin's token, at -v 8 with --trace,
// records a fixture, and fails on purpose, then greps every channel for the
// credentials: stdout, stderr, the trace, the recording, the error messages.
func TestNoCredentialInAnyOutput(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	dir := t.TempDir()
	cert, key, keyPEM := clitest.ClientPair(t, dir)
	secrets := append(clitest.SecretsOf(keyPEM), clitest.Token)
	// The plugin answers with the token the fake apiserver wants, so its
	// credential travels the whole way.
	plugin := clitest.WriteFile(t, filepath.Join(dir, "plugin.sh"), "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\""+clitest.Token+"\"}}'\n")
	execConfig := clitest.WriteFile(t, filepath.Join(dir, "kubeconfig"), fmt.Sprintf(`apiVersion: v1
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
	notKey := clitest.WriteFile(t, filepath.Join(dir, "not-a-key"), "this is not PEM but "+clitest.Token+"\n")

	base := []string{"--node", node1, "--max-events", node1Count, "-v", "8", "-o", "json"}
	withCert := append([]string{"--client-certificate", cert, "--client-key", key}, api.connArgs()...)
	traceArgs := []string{"--trace"} // on stderr, searched with the rest
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
	check("wrong CA", run(t, append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", clitest.Token,
		"--certificate-authority", cert, "--client-certificate", cert, "--client-key", key)...), false)
	check("a key that is not one", run(t, append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", clitest.Token,
		"--certificate-authority", api.caFile, "--client-certificate", cert, "--client-key", notKey)...), false)
	// A refused token is retried (it may not be bound to a role yet); its
	// output is read up to the first retry.
	refused := runUntilRetry(t, "401", append(append([]string{"watch"}, base...), "--server", api.srv.URL, "--token", clitest.Token+"-wrong",
		"--certificate-authority", api.caFile)...)
	outputs = append(outputs, "refused token stdout", refused.stdout, "refused token stderr", refused.stderr)

	files := 0
	for _, root := range []string{fixtureDir} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			files++
			outputs = append(outputs, path, string(clitest.ReadFile(t, path)))
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
