package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
)

// TestProxy runs `podwatch proxy` with the node's kubeconfig in front of a
// real apiserver, and real clients through it: kubectl's get and watch, and
// podwatch's own watch in JSON and protobuf. Each must see the server's
// changes; the proxy's credential must appear in no output, and a client's
// own must never reach the server.
func TestProxy(t *testing.T) {
	c, ctx := startCluster(t, 5*time.Minute)
	const ns = "proxy"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "first", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	traceFile := filepath.Join(dir, "proxy-trace.jsonl")
	px := startCommand(t, ctx, bin, "proxy", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0",
		"--trace-file", traceFile, "--trace-format", "json")
	server := proxyURL(t, px)
	kubectl := kubectlBin(t, ctx)
	var outputs []string // everything every client and the proxy printed

	t.Run("kubectl get pods", func(t *testing.T) {
		// The client's own token is a bogus one: were it forwarded, the
		// apiserver would answer 401.
		out := runKubectl(t, ctx, kubectl, dir, "get", "pods", "-n", ns, "-o", "name", "--server", server, "--token", "client-token-not-for-the-server")
		outputs = append(outputs, out)
		if strings.TrimSpace(out) != "pod/first" {
			t.Fatalf("kubectl get pods printed %q, want pod/first", out)
		}
	})
	t.Run("kubectl get pods --watch", func(t *testing.T) {
		w := startKubectl(t, ctx, kubectl, dir, "get", "pods", "-n", ns, "--watch", "-o", "json", "--server", server)
		w.waitFor(t, `"name": "first"`)
		if _, err := c.CreatePod(ctx, ns, "watched", node, nil); err != nil {
			t.Fatalf("CreatePod: %v", err)
		}
		w.waitFor(t, `"name": "watched"`)
		outputs = append(outputs, w.out.String(), w.err.String())
	})
	for _, ct := range []string{"json", "protobuf"} {
		t.Run("podwatch watch --content-type "+ct, func(t *testing.T) {
			initial, _, err := serverState(ctx, c)
			if err != nil {
				t.Fatalf("list pods as admin: %v", err)
			}
			w := startCommand(t, ctx, bin, "watch", "--server", server, "--node", node, "-o", "json",
				"--content-type", ct, "--max-events", "1")
			first := w.next(t)
			if diff := cmp.Diff(initial, first.states()); diff != "" {
				t.Fatalf("first update's pods (-server +printed):\n%s", diff)
			}
			name := "added-" + ct
			rv, err := c.CreatePod(ctx, ns, name, node, nil)
			if err != nil {
				t.Fatalf("CreatePod: %v", err)
			}
			u := w.next(t)
			if want := []string{ns + "/" + name + " rv=" + rv}; u.Op != "ADD" || !cmp.Equal(want, keysAndRVs(u)) {
				t.Fatalf("update after the create: %s %v, want ADD %v", u.Op, keysAndRVs(u), want)
			}
			if err := w.waitExit(t); err != nil {
				t.Fatalf("podwatch watch after --max-events: %v\n%s", err, w.stderr())
			}
			outputs = append(outputs, w.stderr())
		})
	}

	t.Run("record and replay", func(t *testing.T) { testProxyRecord(t, ctx, c, bin, kubeconfig, kubectl) })
	t.Run("kubectl through --tls with --kubeconfig-out", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "proxy-kubeconfig")
		tp := startCommand(t, ctx, bin, "proxy", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0", "--tls", "--kubeconfig-out", out)
		if u := proxyURL(t, tp); !strings.HasPrefix(u, "https://") {
			t.Fatalf("--tls proxy at %s", u)
		}
		got := runKubectl(t, ctx, kubectl, dir, "--kubeconfig", out, "get", "pods", "-n", ns, "-o", "name")
		if !strings.Contains(got, "pod/first") {
			t.Fatalf("kubectl --kubeconfig %s get pods printed %q, want pod/first", out, got)
		}
		tp.cmd.Process.Signal(syscall.SIGINT)
		if err := tp.waitExit(t); err != nil {
			t.Fatalf("TLS proxy after Ctrl-C: %v\n%s", err, tp.stderr())
		}
		outputs = append(outputs, tp.stderr(), got)
	})

	// Ctrl-C ends the proxy with status 0.
	if err := px.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("interrupt the proxy: %v", err)
	}
	if err := px.waitExit(t); err != nil {
		t.Fatalf("proxy after Ctrl-C: %v\n%s", err, px.stderr())
	}
	outputs = append(outputs, px.stderr())
	outputs = append(outputs, px.rest()...)
	traced, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatalf("the proxy's trace: %v", err)
	}
	outputs = append(outputs, string(traced))
	checkProxyTrace(t, traced)
	for _, out := range outputs {
		if strings.Contains(out, c.NodeToken) {
			t.Fatalf("the proxy's token appears in an output:\n%s", out)
		}
	}
}

var (
	proxyLine = regexp.MustCompile(`proxying (https?://\S+) to`)
	serveLine = regexp.MustCompile(` on (https?://\S+)`)
)

// proxyURL waits for the proxy's first line and returns the address it
// listens on.
func proxyURL(t *testing.T, p *process) string { return listenURL(t, p, proxyLine) }

// servedURL is proxyURL for podwatch serve.
func servedURL(t *testing.T, p *process) string { return listenURL(t, p, serveLine) }

func listenURL(t *testing.T, p *process, line *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if m := line.FindStringSubmatch(p.stderr()); m != nil {
			return m[1]
		}
		select {
		case <-p.exited:
			t.Fatalf("podwatch exited: %v\n%s", p.err, p.stderr())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("podwatch did not say where it listens within %s:\n%s", wait, p.stderr())
	return ""
}

func keysAndRVs(u printedUpdate) []string {
	var out []string
	for _, p := range u.Pods {
		s := p.state()
		out = append(out, s.Key+" rv="+s.RV)
	}
	return out
}

// kubectlBin is the harness's kubectl, built first if missing.
func kubectlBin(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir, err := cluster.DefaultBinDir()
	if err != nil {
		t.Fatalf("kubectl bin folder: %v", err)
	}
	if err := cluster.Ensure(ctx, dir, "kubectl"); err != nil {
		t.Fatalf("build kubectl: %v", err)
	}
	return filepath.Join(dir, "kubectl")
}

// kubectlCmd is kubectl with no kubeconfig of the user's: its HOME (for the
// discovery cache) is home.
func kubectlCmd(ctx context.Context, kubectl, home string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, kubectl, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "no-kubeconfig"))
	return cmd
}

func runKubectl(t *testing.T, ctx context.Context, kubectl, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var stderr bytes.Buffer
	cmd := kubectlCmd(ctx, kubectl, home, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// kubectlRun is a kubectl running until the test ends, or stop.
type kubectlRun struct {
	out, err *kubectlOutput
	stop     func() // safe twice
}

func startKubectl(t *testing.T, ctx context.Context, kubectl, home string, args ...string) *kubectlRun {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	r := &kubectlRun{out: &kubectlOutput{}, err: &kubectlOutput{}}
	cmd := kubectlCmd(ctx, kubectl, home, args...)
	cmd.Stdout, cmd.Stderr = r.out, r.err
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start kubectl: %v", err)
	}
	var once sync.Once
	r.stop = func() { once.Do(func() { cancel(); cmd.Wait() }) }
	t.Cleanup(r.stop)
	return r
}

// waitFor waits until kubectl has printed sub.
func (r *kubectlRun) waitFor(t *testing.T, sub string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !strings.Contains(r.out.String(), sub) {
		if time.Now().After(deadline) {
			t.Fatalf("kubectl did not print %q within %s; it printed:\n%s\nstderr:\n%s", sub, wait, r.out, r.err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type kubectlOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *kubectlOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *kubectlOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// testProxyRecord records podwatch's watch and kubectl's through a proxy
// with --record, and replays each recording to the client that made it:
// podwatch must end on the same state, kubectl print the same pods.
func testProxyRecord(t *testing.T, ctx context.Context, c *cluster.Cluster, bin, kubeconfig, kubectl string) {
	const ns = "proxy-record"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	dir := t.TempDir()
	px := startCommand(t, ctx, bin, "proxy", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0",
		"--record", dir, "--record-filter", "/api/v1/pods", "--record-filter", "/api/v1/namespaces/"+ns+"/pods")
	server := proxyURL(t, px)
	w := startCommand(t, ctx, bin, "watch", "--server", server, "--node", node, "-o", "json", "--max-events", "1", "--mode", "snapshot")
	w.next(t)
	rv, err := c.CreatePod(ctx, ns, "recorded", node, nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	final := w.next(t).states()
	if !strings.Contains(strings.Join(final, "\n"), ns+"/recorded rv="+rv) {
		t.Fatalf("the live run's final state lacks the created pod: %v", final)
	}
	if err := w.waitExit(t); err != nil {
		t.Fatalf("podwatch watch: %v\n%s", err, w.stderr())
	}
	home := t.TempDir()
	watchArgs := []string{"get", "pods", "-n", ns, "--watch", "-o", "json"}
	kw := startKubectl(t, ctx, kubectl, home, append(watchArgs, "--server", server)...)
	kw.waitFor(t, `"name": "recorded"`)
	if _, err := c.CreatePod(ctx, ns, "recorded-2", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	kw.waitFor(t, `"name": "recorded-2"`)
	kw.stop()
	if err := px.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("interrupt the proxy: %v", err)
	}
	if err := px.waitExit(t); err != nil {
		t.Fatalf("proxy after Ctrl-C: %v\n%s", err, px.stderr())
	}
	kubectlRec := filepath.Join(dir, "*kubectl*", "recording.json")
	recs, err := filepath.Glob(filepath.Join(dir, "*podwatch*", "recording.json"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("recordings %v (%v), want one of podwatch's\n%s", recs, err, px.stderr())
	}
	t.Run("kubectl's replayed to kubectl", func(t *testing.T) {
		krecs, err := filepath.Glob(kubectlRec)
		if err != nil || len(krecs) != 1 {
			t.Fatalf("recordings %v (%v), want one of kubectl's", krecs, err)
		}
		sv := startCommand(t, ctx, bin, "serve", filepath.Dir(krecs[0]), "--addr", "127.0.0.1:0")
		replay := startKubectl(t, ctx, kubectl, t.TempDir(), append(watchArgs, "--server", servedURL(t, sv))...)
		replay.waitFor(t, `"name": "recorded"`)
		replay.waitFor(t, `"name": "recorded-2"`)
	})
	raw, err := os.ReadFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), c.NodeToken) {
		t.Fatalf("the proxy's token appears in %s", recs[0])
	}
	// Snapshot mode prints the whole pod set each time, so the last line
	// is the final state however the replay groups the changes.
	r := startCommand(t, ctx, bin, "watch", "--replay", filepath.Dir(recs[0]), "--speed", "0", "--node", node, "-o", "json", "--mode", "snapshot")
	if err := r.waitExit(t); err != nil {
		t.Fatalf("podwatch watch --replay: %v\n%s", err, r.stderr())
	}
	replayed := r.rest()
	if len(replayed) == 0 {
		t.Fatalf("the replay printed nothing\n%s", r.stderr())
	}
	var last printedUpdate
	if err := json.Unmarshal([]byte(replayed[len(replayed)-1]), &last); err != nil {
		t.Fatalf("last line %q: %v", replayed[len(replayed)-1], err)
	}
	if diff := cmp.Diff(final, last.states()); diff != "" {
		t.Fatalf("the replay's final state differs from the live run's (-live +replayed):\n%s", diff)
	}
}

// checkProxyTrace reads the proxy's JSON trace: kubectl's discovery and
// watch, and podwatch's watch lists and their events, each named as its
// client's.
func checkProxyTrace(t *testing.T, traced []byte) {
	t.Helper()
	seen := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(traced), []byte("\n")) {
		var st struct {
			Kind    string `json:"kind"`
			Client  string `json:"client"`
			Request *struct {
				Path string `json:"path"`
				Type string `json:"type"`
			} `json:"request"`
			Event *struct {
				Type string `json:"type"`
			} `json:"event"`
		}
		if err := json.Unmarshal(line, &st); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		client, _, _ := strings.Cut(st.Client, "/")
		switch {
		case st.Request != nil && st.Request.Path == "/api":
			seen[client+" discovery"] = true
		case st.Request != nil:
			seen[client+" "+st.Request.Type] = true
		case st.Event != nil:
			seen[client+" event"] = true
		}
	}
	for _, want := range []string{"kubectl discovery", "kubectl list", "kubectl watch", "kubectl event", "podwatch watch-list", "podwatch event"} {
		if !seen[want] {
			t.Errorf("the proxy's trace shows no %s; it shows %v", want, seen)
		}
	}
}
