package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

// quick retries, so that recovering after a restart does not wait out the
// default backoff; nothing asserts how fast.
var quick = cache.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}

// TestRecovery breaks the server under a running reflector in three ways,
// one cluster for all, each subtest with a reflector and namespace of its
// own: the reflector must come back, converge on what the server has, and
// never push a state older than one it pushed before. Each runs untraced
// and traced (see clientMode): a dropped or closing connection must be
// met the same way with the trace's tap on it.
func TestRecovery(t *testing.T) {
	c, ctx := startCluster(t, 8*time.Minute)

	inModes := func(test func(*testing.T, clientMode)) func(*testing.T) {
		return func(t *testing.T) { inEachMode(t, test) }
	}
	t.Run("watch from a compacted resourceVersion relists", inModes(func(t *testing.T, m clientMode) { testCompacted(t, ctx, c, m, "compact", false) }))
	t.Run("watch list from a compacted resourceVersion streams again", inModes(func(t *testing.T, m clientMode) { testCompacted(t, ctx, c, m, "compact-stream", true) }))
	t.Run("apiserver killed mid-watch", inModes(func(t *testing.T, m clientMode) { testAPIServerKilled(t, ctx, c, m) }))
	t.Run("etcd restarted", inModes(func(t *testing.T, m clientMode) { testEtcdRestarted(t, ctx, c, m) }))
}

// startRecovering makes namespace ns with one pod on node-a and runs a
// reflector with quick retries, its client in mode m, that has converged
// on it.
func startRecovering(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode, ns string, watchList bool) (*cache.Reflector[*api.Pod], *pushLog, *stepLog, *tripLog) {
	t.Helper()
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	rv, err := c.CreatePod(ctx, ns, "before", node, map[string]string{"app": "x"})
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	trips := &tripLog{}
	lw := nodeListWatch(m.newClient(t, c, c.NodeToken, trips))
	r, pushes, steps := runReflector(t, ctx, lw, cache.ReflectorOptions{Backoff: quick, WatchList: watchList})
	waitConverged(t, ctx, c, pushes, rv)
	// The push of a listed state comes before the watch is open; what
	// follows breaks the server under an open watch.
	if !poll(ctx, func() bool {
		return slices.ContainsFunc(trips.all(), func(tr trip) bool { return tr.isWatch() && tr.Status == http.StatusOK })
	}) {
		t.Fatalf("no watch open within %s; requests: %s", wait, describeTrips(trips.all()))
	}
	return r, pushes, steps, trips
}

// testCompacted compacts etcd and restarts the apiserver: its new watch
// cache starts after the compacted revision, so the reflector's watch from
// its old resourceVersion is answered 410 and it must relist (with a list,
// or with a watch list again).
func testCompacted(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode, ns string, watchList bool) {
	ns = m.ns(ns)
	r, pushes, steps, trips := startRecovering(t, ctx, c, m, ns, watchList)
	before := r.LastSyncResourceVersion()
	// A write node-a's watch does not see moves etcd past the reflector's
	// version for certain.
	if _, err := c.CreatePod(ctx, ns, "elsewhere", otherNode, nil); err != nil {
		t.Fatalf("CreatePod on %s: %v", otherNode, err)
	}
	rev, err := c.CompactEtcd(ctx)
	if err != nil {
		t.Fatalf("CompactEtcd: %v", err)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("RestartAPIServer: %v", err)
	}
	t.Logf("reflector at rv %s; etcd compacted at revision %d; apiserver restarted", before, rev)

	var relist cache.Step
	if !poll(ctx, func() bool {
		i := slices.IndexFunc(steps.all(), func(s cache.Step) bool { return s.Kind == cache.StepRelist })
		if i >= 0 {
			relist = steps.all()[i]
		}
		return i >= 0
	}) {
		t.Fatalf("no relist within %s; steps:%s", wait, steps.summary())
	}
	if !rest.IsGone(relist.Err) {
		t.Fatalf("relist because of %v, want a 410", relist.Err)
	}
	t.Logf("after the restart: %s", failures(steps))
	se, _ := rest.AsStatusError(relist.Err)
	t.Logf("410 form: %s; status reason %s, message %q", gone410Form(trips.all(), before), se.Status.Reason, se.Status.Message)

	rv, err := c.CreatePod(ctx, ns, "after", node, nil)
	if err != nil {
		t.Fatalf("CreatePod after restart: %v", err)
	}
	waitConverged(t, ctx, c, pushes, rv)
	checkPushes(t, pushes.all())
	// The relist asked for a state not older than the one it had. That is
	// the version it held when the 410 came, which may be past before: the
	// apiserver sends a bookmark to open watches as it shuts down.
	lists := listRequests(trips.all(), watchList)
	if len(lists) != 2 {
		t.Fatalf("lists: got %v, want the first and one relist", lists)
	}
	if cmp, err := meta.CompareResourceVersions(relist.ResourceVersion, before); err != nil || cmp < 0 {
		t.Fatalf("relist from rv %q, before the compaction the reflector was at %s (compare: %d, %v)", relist.ResourceVersion, before, cmp, err)
	}
	if want := "resourceVersion=" + relist.ResourceVersion + "&resourceVersionMatch=NotOlderThan"; !strings.Contains(lists[1], want) {
		t.Errorf("relist %s: want %s", lists[1], want)
	}
}

// gone410Form says how the server answered the watches from rv, in order:
// a 200 last means the 410 came as an ERROR event inside the stream.
func gone410Form(trips []trip, rv string) string {
	var answers []string
	for _, tr := range trips {
		if tr.isWatch() && tr.Query.Get("resourceVersion") == rv {
			answers = append(answers, fmt.Sprintf("HTTP %d", tr.Status))
		}
	}
	return fmt.Sprintf("watches from rv %s answered %s", rv, strings.Join(answers, ", "))
}

// listRequests returns the lists among trips, or with watchList the watch
// lists (sendInitialEvents=true).
func listRequests(trips []trip, watchList bool) []string {
	var out []string
	for _, tr := range trips {
		if tr.isWatch() == watchList && (!watchList || tr.Query.Get("sendInitialEvents") == "true") {
			out = append(out, tr.Path+"?"+tr.Query.Encode())
		}
	}
	return out
}

// testAPIServerKilled kills the apiserver under an open watch, starts it
// again, and changes pods only then: no write can happen while it is down.
func testAPIServerKilled(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("kill")
	_, pushes, steps, _ := startRecovering(t, ctx, c, m, ns, false)
	if err := c.KillAPIServer(); err != nil {
		t.Fatalf("KillAPIServer: %v", err)
	}
	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatalf("StartAPIServer: %v", err)
	}
	writeAndConverge(t, ctx, c, pushes, ns)
	checkPushes(t, pushes.all())
	t.Logf("after the kill: %s", failures(steps))
	// A dropped connection is a failure, never a clean end of the watch.
	if n := steps.count(cache.StepWatchEnded); n != 0 {
		t.Errorf("clean watch ends: got %d, want 0; steps:%s", n, steps.summary())
	}
	all := steps.all()
	i := slices.IndexFunc(all, func(s cache.Step) bool { return s.Kind == cache.StepBackoff })
	if i < 0 {
		t.Fatalf("no backoff after the kill; steps:%s", steps.summary())
	}
	// A killed server's connection ends in a truncated stream or, when the
	// kernel resets it, a read error: both are transport failures.
	var opErr *net.OpError
	if !errors.Is(all[i].Err, io.ErrUnexpectedEOF) && !errors.As(all[i].Err, &opErr) {
		t.Errorf("first failure after the kill: got %v, want io.ErrUnexpectedEOF or a *net.OpError in its chain", all[i].Err)
	}
}

// testEtcdRestarted restarts etcd under the apiserver and a running
// reflector, then changes pods once the apiserver can write again.
func testEtcdRestarted(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("etcd")
	_, pushes, steps, _ := startRecovering(t, ctx, c, m, ns, false)
	if err := c.StopEtcd(); err != nil {
		t.Fatalf("StopEtcd: %v", err)
	}
	if err := c.StartEtcd(ctx); err != nil {
		t.Fatalf("StartEtcd: %v", err)
	}
	writeAndConverge(t, ctx, c, pushes, ns)
	checkPushes(t, pushes.all())
	t.Logf("across the etcd restart: %s", failures(steps))
}

// writeAndConverge creates, relabels and deletes pods in ns, retrying
// while the apiserver finds its way back to etcd, and waits after each for
// the pushed state to equal the server's.
func writeAndConverge(t *testing.T, ctx context.Context, c *cluster.Cluster, pushes *pushLog, ns string) {
	t.Helper()
	rv := retryWrite(t, ctx, "create", func() (string, error) {
		rv, err := c.CreatePod(ctx, ns, "after", node, nil)
		if cluster.IsStatus(err, http.StatusConflict) {
			// An earlier try got through after all; write again to learn a
			// resourceVersion.
			return c.UpdatePodLabels(ctx, ns, "after", map[string]string{"retried": "yes"})
		}
		return rv, err
	})
	waitConverged(t, ctx, c, pushes, rv)
	rv = retryWrite(t, ctx, "relabel", func() (string, error) {
		return c.UpdatePodLabels(ctx, ns, "before", map[string]string{"app": "y"})
	})
	waitConverged(t, ctx, c, pushes, rv)
	rv = retryWrite(t, ctx, "delete", func() (string, error) {
		rv, err := c.DeletePod(ctx, ns, "before", &zero)
		if cluster.IsStatus(err, http.StatusNotFound) {
			// An earlier try got through after all.
			return c.UpdatePodLabels(ctx, ns, "after", map[string]string{"deleted": "before"})
		}
		return rv, err
	})
	waitConverged(t, ctx, c, pushes, rv)
}

// retryWrite calls write until it succeeds, failing t after wait: right
// after a restart the apiserver may still be reconnecting to etcd.
func retryWrite(t *testing.T, ctx context.Context, what string, write func() (string, error)) string {
	t.Helper()
	var rv string
	var err error
	if !poll(ctx, func() bool {
		rv, err = write()
		return err == nil
	}) {
		t.Fatalf("%s: no success within %s: %v", what, wait, err)
	}
	return rv
}

// failures describes the watch ends, relists and backoffs a reflector went
// through, for the log.
func failures(steps *stepLog) string {
	var parts []string
	for _, s := range steps.all() {
		switch s.Kind {
		case cache.StepWatchEnded, cache.StepRelist:
			parts = append(parts, fmt.Sprintf("%s at rv %s (%s)", s.Kind, s.ResourceVersion, s.Cause))
		case cache.StepBackoff:
			parts = append(parts, fmt.Sprintf("backoff %s after %s", s.Wait.Round(time.Millisecond), describeErr(s.Err)))
		}
	}
	return strings.Join(parts, "; ")
}

// describeErr names an error's type at the root of its chain and its text.
func describeErr(err error) string {
	root := err
	for {
		next := errors.Unwrap(root)
		if next == nil {
			break
		}
		root = next
	}
	return fmt.Sprintf("%T %v", root, err)
}
