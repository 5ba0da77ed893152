package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli"
	"github.com/podwatch/podwatch/internal/cluster"
)

// probeLine is one line of podwatch probe -o json: a probe or the summary.
type probeLine struct {
	Probe                int      `json:"probe"`
	Lost                 bool     `json:"lost"`
	Lag                  *float64 `json:"lag_s"`
	RVLag                *int64   `json:"rvLag"`
	ResourceVersion      string   `json:"resourceVersion"`
	WatchResourceVersion string   `json:"watchResourceVersion"`
	Summary              *struct {
		Probes int `json:"probes"`
		Lost   int `json:"lost"`
		Lag    struct {
			P50, P99, Max *float64
		} `json:"lag_s"`
		RVLag struct {
			P50, P99, Max *float64
		} `json:"rvLag"`
	} `json:"summary"`
}

// podwatch probe against the real apiserver: it refuses to run without
// --write, names the permission a read-only user lacks, and as the admin
// measures a lag (in seconds and resourceVersions) for each probe, then
// deletes its canary, when its probes are done and when interrupted.
// Lags are measurements: the test requires that they were taken, never
// how long they are.
func TestProbeAgainstAPIServer(t *testing.T) {
	c, ctx := startCluster(t, 8*time.Minute)
	if err := c.EnsureNamespace(ctx, "default"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	dir := t.TempDir()
	admin, nodeUser := writeKubeconfig(t, c, dir, "admin.kubeconfig", c.AdminToken), writeKubeconfig(t, c, dir, "node.kubeconfig", c.NodeToken)
	probe := func(args ...string) (code int, stdout, stderr string) {
		var out, errOut bytes.Buffer
		code = cli.Main(ctx, append([]string{"probe", "--node", node}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	t.Run("refuses without --write", func(t *testing.T) {
		code, _, stderr := probe("--kubeconfig", admin, "--count", "1")
		if code != 2 || !strings.Contains(stderr, "--write") || !strings.Contains(stderr, "writes") {
			t.Fatalf("exit %d, stderr %q; want 2 and a refusal saying the probe writes and asking for --write", code, stderr)
		}
		noCanary(t, ctx, c)
	})

	t.Run("names the missing permission", func(t *testing.T) {
		code, _, stderr := probe("--kubeconfig", nodeUser, "--write", "--count", "1")
		if code != 1 || !strings.Contains(stderr, "permission to create pods in namespace default") {
			t.Fatalf("exit %d, stderr %q; want 1 and the missing permission (create pods in default)", code, stderr)
		}
		noCanary(t, ctx, c)
	})

	t.Run("measures a lag", func(t *testing.T) {
		const count = 3
		code, stdout, stderr := probe("--kubeconfig", admin, "--write", "--count", strconv.Itoa(count),
			"--every", "500ms", "--timeout", wait.String(), "-o", "json")
		t.Logf("podwatch probe:\n%s%s", stdout, stderr)
		if code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
		}
		probes, sum := parseProbe(t, stdout)
		if len(probes) != count || sum == nil {
			t.Fatalf("%d probe lines and summary %v, want %d probes and a summary", len(probes), sum, count)
		}
		arrived := checkProbes(t, probes)
		if arrived == 0 || sum.Summary.Probes != arrived || sum.Summary.Lost != count-arrived {
			t.Fatalf("%d probes arrived; summary says %d arrived, %d lost: want at least one, and the summary to agree",
				arrived, sum.Summary.Probes, sum.Summary.Lost)
		}
		for name, q := range map[string]*float64{"lag p50": sum.Summary.Lag.P50, "lag p99": sum.Summary.Lag.P99, "lag max": sum.Summary.Lag.Max,
			"rv p50": sum.Summary.RVLag.P50, "rv p99": sum.Summary.RVLag.P99, "rv max": sum.Summary.RVLag.Max} {
			if q == nil || *q < 0 {
				t.Errorf("summary %s: %v, want a value ≥ 0", name, q)
			}
		}
		noCanary(t, ctx, c)
	})

	t.Run("interrupted", func(t *testing.T) {
		bin := buildCommand(t, ctx, dir)
		p := startCommand(t, ctx, bin, "probe", "--kubeconfig", admin, "--node", node, "--write", "--every", "500ms", "-o", "json")
		checkProbes(t, []probeLine{parseLine(t, p.nextLine(t))})
		if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if err := p.waitExit(t); err != nil {
			t.Fatalf("after SIGINT: %v, want exit 0; stderr:\n%s", err, p.stderr())
		}
		_, sum := parseProbe(t, strings.Join(p.rest(), "\n"))
		if sum == nil || sum.Summary.Probes+sum.Summary.Lost == 0 {
			t.Fatalf("no summary counting the probes after SIGINT: %+v", sum)
		}
		noCanary(t, ctx, c)
	})
}

// checkProbes requires each probe line to have its resourceVersions, and
// those that arrived a lag in seconds and in resourceVersions, neither
// negative. It returns how many arrived.
func checkProbes(t *testing.T, probes []probeLine) (arrived int) {
	t.Helper()
	for _, p := range probes {
		if _, err := strconv.ParseUint(p.ResourceVersion, 10, 64); err != nil || p.WatchResourceVersion == "" || p.Probe == 0 {
			t.Errorf("probe %+v: want its number, the patch's resourceVersion and the watch's", p)
		}
		if p.Lost {
			continue
		}
		arrived++
		if p.Lag == nil || *p.Lag < 0 || p.RVLag == nil || *p.RVLag < 0 {
			t.Errorf("probe %d: lag %v s, %v resourceVersions; want both measured, ≥ 0", p.Probe, p.Lag, p.RVLag)
		}
	}
	return arrived
}

func parseLine(t *testing.T, line string) probeLine {
	t.Helper()
	var p probeLine
	if err := json.Unmarshal([]byte(line), &p); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	return p
}

// parseProbe splits -o json output into the probes and the summary.
func parseProbe(t *testing.T, out string) (probes []probeLine, sum *probeLine) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		p := parseLine(t, l)
		if p.Summary != nil {
			sum = &p
			continue
		}
		probes = append(probes, p)
	}
	return probes, sum
}

// noCanary fails t if a probe's canary pod is on the node.
func noCanary(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	t.Helper()
	names, _, err := c.ListPodsOnNode(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.Contains(n, "podwatch-probe-") {
			t.Errorf("canary %s left on %s", n, node)
		}
	}
}
