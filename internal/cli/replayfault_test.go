package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

const lifecycleFixture = "../../testdata/fixtures/lifecycle"

// lastLine is the final snapshot a run printed.
func lastLine(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || lines[len(lines)-1] == "" {
		t.Fatalf("no output")
	}
	return lines[len(lines)-1]
}

// podsOf is a snapshot line's pods as namespace/name@resourceVersion: the
// state it shows, whether its pods came from a watch event or a list (whose
// items the apiserver sends without kind and apiVersion).
func podsOf(t *testing.T, line string) []string {
	t.Helper()
	var u struct {
		Pods []struct {
			Metadata struct{ Namespace, Name, ResourceVersion string }
		}
	}
	if err := json.Unmarshal([]byte(line), &u); err != nil {
		t.Fatalf("snapshot %q: %v", line, err)
	}
	var out []string
	for _, p := range u.Pods {
		out = append(out, p.Metadata.Namespace+"/"+p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
	}
	return out
}

// TestReplayWithFaultsEndsInTheSameState replays the bundled lifecycle fixture
// with faults on its watches and lists: podwatch recovers, and its last
// snapshot is the one of the clean replay.
func TestReplayWithFaultsEndsInTheSameState(t *testing.T) {
	clitest.Isolate(t)
	base := []string{"watch", "--replay", lifecycleFixture, "--speed", "0", "--mode", "snapshot", "-o", "json"}
	clean := lastLine(t, mustRun(t, base...).stdout)
	if !strings.Contains(clean, `"web-4"`) {
		t.Fatalf("the clean replay's last snapshot lacks the last pod created: %s", clean)
	}
	scenario := filepath.Join(t.TempDir(), "faults.yaml")
	if err := os.WriteFile(scenario, []byte("faults:\n- gone-event:events=1,nth=2\n- 500:on=list,nth=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, faults := range [][]string{
		{"--fault", "half-event:events=2", "--fault", "gone:on=watch,nth=3"},
		{"--faults", scenario},
	} {
		r := mustRun(t, append(base, faults...)...)
		if got, want := podsOf(t, lastLine(t, r.stdout)), podsOf(t, clean); !slices.Equal(got, want) {
			t.Fatalf("with %q the last snapshot is %q, want the clean replay's %q\nstderr:\n%s", faults, got, want, r.stderr)
		}
	}
}

func TestReplayFaultFlagErrors(t *testing.T) {
	clitest.Isolate(t)
	for _, tc := range []struct{ args, want string }{
		{"--fault explode", `unknown kind "explode"`},
		{"--fault cut:events=x", "events"},
		{"--faults /nonexistent/faults.yaml", "/nonexistent/faults.yaml"},
	} {
		r := run(t, append([]string{"watch", "--replay", lifecycleFixture, "--speed", "0"}, strings.Fields(tc.args)...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%s: exit %d, stderr %q; want a failure naming %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestReplayOverHTTP2 serves a fixture over TLS: the server speaks HTTP/2 to
// a client that trusts its certificate, and a replay over it prints what the
// clear HTTP/1.1 one prints.
func TestReplayOverHTTP2(t *testing.T) {
	clitest.Isolate(t)
	fs, err := base.StartServer("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.Proto))
	}), true)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(fs.CA()) {
		t.Fatalf("the replay's certificate does not parse")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	req, _ := http.NewRequestWithContext(context.Background(), "GET", fs.URL()+"/api/v1/pods", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET over TLS: %v", err)
	}
	resp.Body.Close()
	if resp.Proto != "HTTP/2.0" || !strings.HasPrefix(fs.URL(), "https://") {
		t.Fatalf("served %s at %s, want HTTP/2.0 over https", resp.Proto, fs.URL())
	}

	args := []string{"watch", "--replay", lifecycleFixture, "--speed", "0", "-o", "json"}
	clear := mustRun(t, args...).stdout
	overTLS := mustRun(t, append(args, "--http2")...).stdout
	if clear != overTLS {
		t.Fatalf("replay over HTTP/2 printed\n%s\nwant what the HTTP/1.1 replay printed\n%s", overTLS, clear)
	}
}

// TestServeOverHTTP2 serves a recorded fixture over TLS with --http2 and
// watches it as a cluster that has a CA of its own.
func TestServeOverHTTP2(t *testing.T) {
	clitest.Isolate(t)
	dir, _ := recordFixture(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	served := make(chan int, 1)
	go func() {
		served <- testEnv(stdout, stderr).Run(ctx, []string{"serve", dir, "--speed", "0", "--http2", "--ca-out", ca})
	}()
	if err := stderr.WaitFor("--certificate-authority " + ca); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`on (https://[0-9.:]+)\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no https address in %q", stderr.String())
	}
	r := mustRun(t, "watch", "--server", m[1], "--certificate-authority", ca, "--node", node1, "--max-events", node1Count)
	checkGolden(t, "text.golden", r.stdout)
	cancel()
	select {
	case code := <-served:
		if code != 0 {
			t.Fatalf("serve: exit %d, want 0; stderr:\n%s", code, stderr)
		}
	case <-time.After(clitest.Wait):
		t.Fatalf("serve did not stop within %s", clitest.Wait)
	}
}
