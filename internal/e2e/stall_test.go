package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/stall"
)

// stallWatchTimeout is the timeoutSeconds of the test's watches: long enough
// that a watch just answered is still open when the apiserver is frozen,
// short enough that the freeze outlasts it (plus the verdict's slack) soon.
const stallWatchTimeout = 10 * time.Second

// TestStallAgainstAPIServer freezes the real apiserver (SIGSTOP) under an
// open watch of a traced reflector whose stall threshold is a second: the
// trace must tell the watch's silence, quiet at first, then dead once the
// watch outlives its timeoutSeconds with no end. Thawed, the apiserver ends
// the watch, the reflector watches again, and a pod created then arrives.
func TestStallAgainstAPIServer(t *testing.T) {
	c, ctx := startCluster(t, 5*time.Minute)
	const ns = "stall"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	rv, err := c.CreatePod(ctx, ns, "before", node, nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	run := startStallRun(t, ctx, c)
	waitConverged(t, ctx, c, run.pushes, rv)

	// Freeze as soon as a new watch is answered: it then has its whole
	// timeoutSeconds to go (one open for a while could end just before the
	// freeze, and the next be sent to a server that never answers it).
	first := run.openWatch(t)
	var req int
	if !poll(ctx, func() bool { req = run.openWatch(t); return req > first }) {
		t.Fatalf("no new watch answered within %s:\n%s", wait, run.out.String())
	}
	c.FreezeAPIServerForTest(t)
	if !poll(ctx, func() bool { return run.told(t, req, trace.VerdictDead) }) {
		c.ThawAPIServer()
		t.Fatalf("no dead stall of watch #%d within %s of freezing the apiserver:\n%s", req, wait, run.out.String())
	}
	if err := c.ThawAPIServer(); err != nil {
		t.Fatalf("thaw: %v", err)
	}

	after, err := c.CreatePod(ctx, ns, "after", node, nil)
	if err != nil {
		t.Fatalf("CreatePod after the thaw: %v", err)
	}
	waitConverged(t, ctx, c, run.pushes, after)
	st := run.stop(t)

	var verdicts []string
	stalls := 0
	for _, s := range run.steps(t) {
		if s.Stall == nil {
			continue
		}
		stalls++
		if s.Req == req {
			verdicts = append(verdicts, s.Stall.Verdict)
			if !strings.Contains(s.Stall.Explain, "timeoutSeconds") && s.Stall.Verdict == trace.VerdictDead {
				t.Errorf("dead stall explains %q: want the timeoutSeconds it outlived", s.Stall.Explain)
			}
		}
	}
	// Nothing changed on the node while the watch was open, so no bookmark
	// was due: quiet first, then dead past timeoutSeconds.
	if got := strings.Join(verdicts, " "); got != "quiet dead" {
		t.Errorf("stalls of watch #%d: %q, want \"quiet dead\":\n%s", req, got, run.out.String())
	}
	if st.Stalls != stalls {
		t.Errorf("summary counts %d stalls, the trace tells %d", st.Stalls, stalls)
	}
	if n := run.watchesAfter(t, req); n == 0 {
		t.Errorf("no watch after #%d: the reflector did not watch again after the thaw:\n%s", req, run.out.String())
	}
}

// startStallRun starts a traced run whose stall threshold is a second, and
// whose watches each ask for stallWatchTimeout.
func startStallRun(t *testing.T, ctx context.Context, c *cluster.Cluster) *tracedRun {
	t.Helper()
	return startTracedRun(t, ctx, tracedRunOptions{
		Rest:  clusterConfig(c, c.NodeToken),
		Trace: trace.Options{Analyses: []trace.Analysis{stall.New(stall.Options{After: time.Second})}},
		Reflector: cache.ReflectorOptions{
			MinWatchTimeout: stallWatchTimeout,
			Rand:            func() float64 { return 0 }, // every watch asks for exactly that
		},
	})
}

// openWatch is the request number of the last request, if it is a watch
// answered 200 whose body has not ended; 0 otherwise.
func (r *tracedRun) openWatch(t *testing.T) int {
	last, answered := 0, false
	for _, s := range r.steps(t) {
		switch {
		case s.Request != nil:
			last, answered = 0, false
			if s.Request.Type == "watch" {
				last = s.Req
			}
		case s.Response != nil && s.Req == last:
			answered = s.Response.Status == 200
		case s.BodyEnd != nil && s.Req == last:
			last = 0
		}
	}
	if !answered {
		return 0
	}
	return last
}

// told reports whether the trace has told a stall of request req with the
// verdict.
func (r *tracedRun) told(t *testing.T, req int, verdict string) bool {
	for _, s := range r.steps(t) {
		if s.Stall != nil && s.Req == req && s.Stall.Verdict == verdict {
			return true
		}
	}
	return false
}

// watchesAfter counts the watch requests after request req.
func (r *tracedRun) watchesAfter(t *testing.T, req int) int {
	n := 0
	for _, s := range r.steps(t) {
		if s.Request != nil && s.Request.Type == "watch" && s.Req > req {
			n++
		}
	}
	return n
}
