package compat

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/podwatch/podwatch/internal/cli"
	"github.com/podwatch/podwatch/internal/cluster"
)

var proxyingAt = regexp.MustCompile(`proxying (http://\S+) to`)

var updateProxyDocs = flag.Bool("update-proxy-docs", false,
	"write the protobuf client's proxy recording and trace lines of TestKubeletThroughProxy to internal/docs/testdata/proxy, which docs/PROTOCOL.md section 12 is told from")

// TestKubeletThroughProxy runs client-go's reflector, built as the kubelet
// builds its pod source, through `podwatch proxy` against the real
// apiserver, in protobuf (the kubelet's own) and in JSON, at once: each
// converges on the server's changes, across a compaction and an apiserver
// restart that make it relist. The proxy's trace tells each client apart
// with its watch list, watches and relist, and each client's recording,
// replayed by `podwatch serve` to client-go, ends on the state the live run
// ended on.
func TestKubeletThroughProxy(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, "shop"); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, "shop", "web-1", kubeletNode, nil); err != nil {
		t.Fatalf("create web-1: %v", err)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, c.CAData, 0o600); err != nil {
		t.Fatalf("write CA: %v", err)
	}
	traceFile, recDir := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "rec")
	proxyURL, stopProxy := startProxyInProcess(t, "--server", c.URL, "--token", c.NodeToken, "--certificate-authority", ca,
		"--listen", "127.0.0.1:0", "--trace-file", traceFile, "--trace-format", "json", "--record", recDir, "--record-filter", "/api/v1/pods")

	modes := []clientMode{clientModes[0], clientModes[1]} // the kubelet's protobuf watch list, and JSON
	logs := map[string]*pushLog{}
	var stops []func()
	for _, mode := range modes {
		log := newPushLog()
		logs[mode.name] = log
		cfg := &rest.Config{Host: proxyURL, UserAgent: "kubelet-path-" + mode.name}
		r := newKubeletReflector(t, cfg, kubeletNode, mode, log.push)
		stops = append(stops, runReflectorUntil(t, r))
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	waitAll := func(what string, want func(podSet) bool) {
		t.Helper()
		for name, log := range logs {
			if pushes, ok := log.waitFor(convergeBound, want); !ok {
				t.Fatalf("%s: client-go %s never pushed it; pushes: %v", what, name, pushes)
			}
		}
	}
	waitAll("web-1", func(p podSet) bool { _, ok := p["shop/web-1"]; return ok })
	rv2, err := c.CreatePod(ctx, "shop", "web-2", kubeletNode, nil)
	if err != nil {
		t.Fatalf("create web-2: %v", err)
	}
	waitAll("web-2", func(p podSet) bool { return p["shop/web-2"] == proxyTestRV(t, rv2) })

	// A compaction the apiserver's new watch cache starts after: every
	// watch's resourceVersion is then too old, and client-go relists.
	if _, err := c.CompactEtcd(ctx); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("restart the apiserver: %v", err)
	}
	rv3, err := c.CreatePod(ctx, "shop", "web-3", kubeletNode, nil)
	if err != nil {
		t.Fatalf("create web-3: %v", err)
	}
	waitAll("web-3 after the restart", func(p podSet) bool { return p["shop/web-3"] == proxyTestRV(t, rv3) })
	final := map[string]podSet{}
	for name, log := range logs {
		pushes, _ := log.snapshot()
		final[name] = pushes[len(pushes)-1]
	}
	for _, stop := range stops {
		stop()
	}
	stops = nil
	stopProxy()

	checkProxyClientTrace(t, traceFile, c.NodeToken, modes)
	if *updateProxyDocs {
		writeProxyDocsTestdata(t, recDir, traceFile, c.NodeToken, modes[0])
	}
	for _, mode := range modes {
		t.Run("replay "+mode.name, func(t *testing.T) {
			recs, err := filepath.Glob(filepath.Join(recDir, "*kubelet-path-"+mode.name+"*", "recording.json"))
			if err != nil || len(recs) != 1 {
				t.Fatalf("recordings of %s: %v (%v)", mode.name, recs, err)
			}
			tl := fixtureTimeline(t, filepath.Dir(recs[0]))
			if !maps.Equal(tl.final().pods, final[mode.name]) {
				t.Fatalf("the recording ends on %v, the live run on %v", tl.final().pods, final[mode.name])
			}
			srv := startServe(t, filepath.Dir(recs[0]), "--addr", "127.0.0.1:0")
			checkKubeletConverges(t, &rest.Config{Host: srv.URL}, mode, tl, convergeBound)
		})
	}
}

func proxyTestRV(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := parseRV(rv)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", rv, err)
	}
	return n
}

// startProxyInProcess runs `podwatch proxy ARGS` in this process and
// returns its URL and a stop (Ctrl-C) that waits for it to exit 0.
func startProxyInProcess(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- cli.Main(ctx, append([]string{"proxy"}, args...), io.Discard, stderr) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("podwatch proxy exited %d after Ctrl-C:\n%s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Errorf("podwatch proxy did not exit within 30s of Ctrl-C:\n%s", stderr.String())
		}
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(serveStartTimeout)
	for time.Now().Before(deadline) {
		if m := proxyingAt.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stop
		}
		select {
		case code := <-done:
			t.Fatalf("podwatch proxy exited %d before listening:\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("podwatch proxy did not say where it listens:\n%s", stderr.String())
	return "", nil
}

// checkProxyClientTrace reads the proxy's JSON trace: each client-go is a
// client of its own, with its watch list, its watches, and the relist the
// restart forced; no event of one is told as the other's; no token; and the
// gap audit of that relist tells nothing missed.
func checkProxyClientTrace(t *testing.T, path, token string, modes []clientMode) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the proxy's trace: %v", err)
	}
	if strings.Contains(string(raw), token) {
		t.Fatalf("the proxy's token appears in its trace")
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var st struct {
			Kind     string `json:"kind"`
			Client   string `json:"client"`
			Decision *struct {
				Step string `json:"step"`
			} `json:"decision"`
			Request *struct {
				Type string `json:"type"`
			} `json:"request"`
			Event *struct {
				Name string `json:"name"`
			} `json:"event"`
			Missed *struct {
				How  string `json:"how"`
				Name string `json:"name"`
			} `json:"missed"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		client, _, _ := strings.Cut(st.Client, " from ")
		// The forced relist finds the pods each client-go held, unchanged,
		// and one new: the proxy's gap audit of a real client must miss
		// nothing then (a change skipped or a pod deleted would be a false
		// alarm).
		if st.Missed != nil {
			t.Errorf("the proxy's trace tells %s missed %s %s, though nothing changed unseen", client, st.Missed.How, st.Missed.Name)
		}
		switch {
		case st.Decision != nil:
			seen[client+" decision "+st.Decision.Step] = true
		case st.Request != nil:
			seen[client+" request "+st.Request.Type] = true
		case st.Event != nil && st.Event.Name != "":
			seen[client+" event"] = true
		}
	}
	for _, mode := range modes {
		client := "kubelet-path-" + mode.name
		for _, want := range []string{"request watch-list", "event", "decision relist"} {
			if !seen[client+" "+want] {
				t.Errorf("the trace shows no %s of %s; it shows %v", want, client, seen)
			}
		}
	}
}
