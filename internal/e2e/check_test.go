package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/check"
	"github.com/podwatch/podwatch/internal/cli"
	"github.com/podwatch/podwatch/internal/cluster"
)

// podwatch check against the real apiserver: no check fails, read-only as
// the node's user and with --write as the admin, and -o json lists every
// check with its evidence and without the token; through podwatch proxy
// the read-only verdicts are the same. The apiserver compacts
// etcd every few seconds here (by default every 5 minutes), so that the
// --write run sees a continue token expire within the battery.
func TestCheckAgainstAPIServer(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{ExtraAPIServerArgs: []string{"--etcd-compaction-interval=5s"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, "default"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	for _, name := range []string{"checked-1", "checked-2"} {
		if _, err := c.CreatePod(ctx, "default", name, node, nil); err != nil {
			t.Fatalf("CreatePod: %v", err)
		}
	}
	dir := t.TempDir()
	verdicts := map[string]map[string]check.Result{}
	// Through podwatch proxy (with the node's credentials) the battery gives
	// the read-only run's verdicts. Whether something changed while a watch
	// was open decides some verdicts (watch-rv-order, bookmark-before-timeout
	// are not applicable on a watch that carried nothing), and a read-only
	// run changes nothing, so the test keeps the node's pods changing through
	// both runs: both then judge a moving cluster, whatever else the
	// apiserver does meanwhile.
	throughProxy := func(t *testing.T) {
		kubeconfig := filepath.Join(dir, "read-only.kubeconfig")
		proxyURL := startProxy(t, ctx, kubeconfig)
		// The proxy authenticates: the client needs no credentials.
		empty := filepath.Join(dir, "empty.kubeconfig")
		if err := os.WriteFile(empty, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := cli.Main(ctx, []string{"check", "--server", proxyURL, "--kubeconfig", empty, "--node", node, "-o", "json"}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("podwatch check through the proxy: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
		}
		got := map[string]check.Result{}
		for _, o := range parseOutcomes(t, stdout.String()) {
			got[o.Name] = o.Result
			t.Logf("%-30s %-15s %s", o.Name, o.Result, o.Evidence.Summary)
		}
		if diff := cmp.Diff(verdicts["read-only"], got); diff != "" {
			t.Fatalf("verdicts through the proxy differ from those without (-without +through):\n%s", diff)
		}
	}
	for _, run := range []struct {
		name, token string
		args        []string
		wantPass    []string
	}{
		{"read-only", c.NodeToken, nil, []string{"watch-list-initial-events-end", "watch-too-old-410", "list-paging", "content-type-protobuf", "watch-rv-order", "bookmark-before-timeout"}},
		{"write", c.AdminToken, []string{"--write"}, []string{"list-continue-expired", "watch-list-stays-open", "watch-rv-order", "bookmark-before-timeout"}},
	} {
		var stopChurn func()
		if run.name == "read-only" {
			stopChurn = churn(t, ctx, c, "default", "checked-2")
		}
		t.Run(run.name, func(t *testing.T) {
			kubeconfig := writeKubeconfig(t, c, dir, run.name+".kubeconfig", run.token)
			var stdout, stderr bytes.Buffer
			args := append([]string{"check", "--kubeconfig", kubeconfig, "--node", node, "-o", "json"}, run.args...)
			code := cli.Main(ctx, args, &stdout, &stderr)
			outs := parseOutcomes(t, stdout.String())
			for _, o := range outs {
				t.Logf("%-30s %-15s %s", o.Name, o.Result, o.Evidence.Summary)
			}
			if code != 0 {
				t.Fatalf("podwatch check: exit %d, want 0\nstderr:\n%s", code, stderr.String())
			}
			if len(outs) < 15 || len(outs) != len(check.Names()) {
				t.Fatalf("%d checks printed, want all %d (at least 15)", len(outs), len(check.Names()))
			}
			got := map[string]check.Result{}
			verdicts[run.name] = got
			for _, o := range outs {
				got[o.Name] = o.Result
				if o.Result == check.Fail {
					t.Errorf("%s failed: %+v", o.Name, o.Evidence)
				}
				if o.Evidence.Summary == "" {
					t.Errorf("%s has no evidence", o.Name)
				}
			}
			for _, n := range run.wantPass {
				if got[n] != check.Pass {
					t.Errorf("%s: %s, want pass", n, got[n])
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), run.token) {
				t.Errorf("the output holds the bearer token")
			}
			names, _, err := c.ListPodsOnNode(ctx, node)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if strings.Contains(n, check.ThrowawayPrefix) {
					t.Errorf("throwaway pod %s left behind", n)
				}
			}
		})
		if run.name == "read-only" {
			t.Run("through proxy", throughProxy)
			stopChurn()
		}
	}
}

// startProxy runs podwatch proxy to the cluster of kubeconfig until the
// test ends, and returns its URL.
func startProxy(t *testing.T, ctx context.Context, kubeconfig string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"proxy", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0"}, io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	re := regexp.MustCompile(`proxying (http://[0-9.:]+) to`)
	deadline := time.After(wait)
	for {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case <-deadline:
			t.Fatalf("proxy did not start within %s: %s", wait, stderr.String())
		case code := <-done:
			t.Fatalf("proxy ended (exit %d): %s", code, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func parseOutcomes(t *testing.T, out string) []check.Outcome {
	t.Helper()
	var outs []check.Outcome
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o check.Outcome
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		outs = append(outs, o)
	}
	return outs
}

// churn relabels pod ns/name every 200 ms until the returned stop is
// called, so that every watch of the node's pods sees changes.
func churn(t *testing.T, ctx context.Context, c *cluster.Cluster, ns, name string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if _, err := c.UpdatePodLabels(ctx, ns, name, map[string]string{"churn": strconv.Itoa(n)}); err != nil && ctx.Err() == nil {
				t.Errorf("churn: relabel %s/%s: %v", ns, name, err)
				return
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}
