package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/trace"
)

// TestProxyGapAudit: podwatch's own watch, through a traced proxy, against
// a served fixture with a fault that makes it relist after missing changes
// (a list relist after a 410 ERROR event; a watch list relist after a 410
// answer). The proxy, which holds no store of the client's, tells the same
// missed pods, at the same resourceVersions, as the client's own trace,
// each naming the client.
func TestProxyGapAudit(t *testing.T) {
	for _, tc := range []struct {
		fixture, fault string
		flags          []string
		want           []string // the missed steps' hows, at least
	}{
		{lifecycleFixture, "gone-event:events=1,on=watch,nth=1", []string{"--watch-list=false", "--chunk-size", "500"},
			[]string{trace.MissedDeleted, trace.MissedSkipped}},
		{fixturePath("watch-list"), "gone:on=watch,nth=2", []string{"--watch-list=true"}, []string{trace.MissedDeleted}},
	} {
		t.Run(filepath.Base(tc.fixture)+"/"+tc.fault, func(t *testing.T) {
			clitest.Isolate(t)
			server, _ := serveFixture(t, tc.fixture, "--speed", "0", "--fault", tc.fault)
			dir := t.TempDir()
			proxyFile, clientFile := filepath.Join(dir, "proxy.jsonl"), filepath.Join(dir, "client.jsonl")
			p := startProxyCmd(t, "--server", server, "--listen", "127.0.0.1:0", "--trace-file", proxyFile, "--trace-format", "json")
			stopWatch := watchUntilRelisted(t, clientFile, append([]string{"watch", "--server", p.url, "--node", "node-a",
				"--trace-file", clientFile, "--trace-format", "json"}, tc.flags...)...)
			clientMissed := missedSteps(t, clientFile)
			// The proxy tells its audit as the relist's state passes through
			// it, so by the client's push; the wait is only for the file.
			waitFor(t, "the proxy's missed steps", func() bool { return len(missedSteps(t, proxyFile)) >= len(clientMissed) })
			stopWatch()
			if code := p.stop(t); code != 0 {
				t.Fatalf("proxy exit %d\n%s", code, p.stderr)
			}
			var own, proxied []string
			for _, s := range clientMissed {
				own = append(own, missedLine(s.Missed))
			}
			for _, s := range missedSteps(t, proxyFile) {
				if !strings.HasPrefix(s.Client, "podwatch/") {
					t.Errorf("the proxy's missed step names client %q, want podwatch's User-Agent", s.Client)
				}
				proxied = append(proxied, missedLine(s.Missed))
			}
			if strings.Join(own, "\n") != strings.Join(proxied, "\n") {
				t.Fatalf("the client's own trace tells missed:\n%s\nthe proxy's:\n%s", strings.Join(own, "\n"), strings.Join(proxied, "\n"))
			}
			for _, how := range tc.want {
				if !slices.ContainsFunc(clientMissed, func(s missedStep) bool { return s.Missed.How == how }) {
					t.Errorf("no %s pod told; the fault should make the client miss one:\n%s", how, strings.Join(own, "\n"))
				}
			}
		})
	}
}

type missedStep struct {
	Kind   string        `json:"kind"`
	Client string        `json:"client"`
	Missed *trace.Missed `json:"missed"`
	Push   *trace.Push   `json:"push"`
}

func missedLine(m *trace.Missed) string {
	return fmt.Sprintf("%s %s/%s %s..%s@%s", m.How, m.Namespace, m.Name, m.From, m.To, m.State)
}

// traceSteps reads the whole lines of a JSON trace file being written.
func traceSteps(t *testing.T, file string) []missedStep {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	whole := string(data[:bytes.LastIndexByte(data, '\n')+1]) // the last line may be being written
	if whole == "" {
		return nil
	}
	return parseTraceLines[missedStep](t, whole)
}

func missedSteps(t *testing.T, file string) []missedStep {
	t.Helper()
	var out []missedStep
	for _, s := range traceSteps(t, file) {
		if s.Missed != nil {
			out = append(out, s)
		}
	}
	return out
}

// watchUntilRelisted runs podwatch with args until its JSON trace (file)
// tells a push after a missed step: the relist the fault forced is over.
// It returns what stops the watch (Ctrl-C) and waits for it.
func watchUntilRelisted(t *testing.T, file string, args ...string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	done := make(chan int, 1)
	go func() { done <- testEnv(stdout, stderr).Run(ctx, args) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(clitest.Wait):
				t.Errorf("watch did not stop within %s", clitest.Wait)
			}
		})
	}
	t.Cleanup(stop)
	relisted := func() bool {
		steps := traceSteps(t, file)
		i := slices.IndexFunc(steps, func(s missedStep) bool { return s.Missed != nil })
		return i >= 0 && slices.ContainsFunc(steps[i:], func(s missedStep) bool { return s.Push != nil })
	}
	deadline := time.After(clitest.Wait)
	for !relisted() {
		select {
		case <-deadline:
			t.Fatalf("no relist with a missed step within %s; stderr:\n%s", clitest.Wait, stderr)
		case code := <-done:
			t.Fatalf("watch ended (exit %d) before its relist; stderr:\n%s", code, stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return stop
}

// waitFor polls cond until it holds, failing the test after clitest.Wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(clitest.Wait)
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("%s: not within %s", what, clitest.Wait)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestProxyStall: a client's watch through the proxy that goes silent past
// --stall-after is told as a stall, naming the client.
func TestProxyStall(t *testing.T) {
	clitest.Isolate(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open, and silent
	}))
	defer up.Close()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	// The stall check measures silences on the trace's clock: the wall's.
	onWall := func(e *Env) { e.Now = time.Now }
	p := startProxyEnv(t, onWall, "--server", up.URL, "--listen", "127.0.0.1:0", "--trace-file", file, "--trace-format", "json", "--stall-after", "100ms")
	ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/api/v1/pods?watch=true&resourceVersion=10&timeoutSeconds=600", nil)
	req.Header.Set("User-Agent", "kubelet/v1.35")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stalled := func() []missedStep {
		var out []missedStep
		for _, s := range traceSteps(t, file) {
			if s.Kind == string(trace.KindStall) {
				out = append(out, s)
			}
		}
		return out
	}
	waitFor(t, "a stall step", func() bool { return len(stalled()) > 0 })
	if s := stalled()[0]; s.Client != "kubelet/v1.35 from 127.0.0.1" {
		t.Fatalf("the stall names client %q, want the kubelet's", s.Client)
	}
	cancel()
	if code := p.stop(t); code != 0 {
		t.Fatalf("proxy exit %d\n%s", code, p.stderr)
	}
}
