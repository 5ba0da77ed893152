package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/rest"
)

// TestNodeWatch runs one real cluster and checks, in subtests that share it
// (each with namespaces of its own), that what podwatch hands on for node-a
// follows the server through every kind of change, over each way of
// watching. Each subtest whose client watches over HTTP/2 runs untraced and
// traced (see clientMode).
func TestNodeWatch(t *testing.T) {
	c, ctx := startCluster(t, 6*time.Minute)

	inModes := func(test func(*testing.T, context.Context, *cluster.Cluster, clientMode)) func(*testing.T) {
		return func(t *testing.T) { inEachMode(t, func(t *testing.T, m clientMode) { test(t, ctx, c, m) }) }
	}
	// Untraced only: its first state is all of node-a's pods, which a run
	// before it would add to. The api source runs traced in the command.
	t.Run("api source into podconfig", func(t *testing.T) { testAPISource(t, ctx, c) })
	t.Run("reflector", inModes(testWatchPaths))
	t.Run("watch over TLS is HTTP/2", inModes(testHTTP2))
	t.Run("tokens", func(t *testing.T) { testTokens(t, ctx, c) })
	t.Run("client certificate rotation", inModes(testCertRotation))
	t.Run("podwatch watch as a process", inModes(testCommand))
	t.Run("podwatch watch --diff", func(t *testing.T) { testDiff(t, ctx, c) })
	t.Run("bookmarks and timeouts", inModes(testBookmarks))
}

// testAPISource runs the api source as the kubelet does, feeding a
// PodConfig, and checks both the source's SETs and the merged updates after
// each step of the script.
func testAPISource(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	s := newScript(c, "src")
	rv, wantMerged := s.setup(t, ctx)

	steps := &stepLog{}
	pushes := &pushLog{synced: steps.lastRV}
	merged := &mergedLog{}
	src := source.NewAPI(newClient(t, c, c.NodeToken, nil), node, source.APIOptions{
		Reflector: cache.ReflectorOptions{Observe: steps.observe},
	})
	pc := podconfig.New(podconfig.Incremental, podconfig.Options{})
	// Cleanups run last first: PodConfig's goroutines are waited for once
	// the goroutines below have ended their contexts.
	t.Cleanup(pc.Wait)
	fromSource := make(chan podconfig.PodUpdate)
	goUntilCleanup(t, ctx, "api source", func(ctx context.Context) { src.Run(ctx, fromSource) })
	goUntilCleanup(t, ctx, "forwarder", func(ctx context.Context) { forward(ctx, fromSource, pc.Channel(ctx, podconfig.SourceAPI), pushes) })
	goUntilCleanup(t, ctx, "merged reader", func(ctx context.Context) { merged.read(ctx, pc.Updates()) })

	check := func(name, rv string, want []string) {
		t.Helper()
		waitConverged(t, ctx, c, pushes, rv)
		got := merged.waitFor(ctx, len(want))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: podconfig updates (-want +got):\n%s", name, diff)
		}
	}
	check("first state", rv, wantMerged)
	for _, step := range s.steps() {
		rv, err := step.do(ctx)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		check(step.name, rv, step.merged)
	}
	checkPushes(t, pushes.all())
	for _, op := range pushes.ops() {
		if op != podconfig.SET {
			t.Errorf("api source sent a %s update, want only SETs", op)
		}
	}
	if bad := merged.foreign(); len(bad) > 0 {
		t.Errorf("podconfig published pods of other nodes: %v", bad)
	}
	if n := steps.count(cache.StepList); n != 1 {
		t.Errorf("list requests: got %d, want 1 (steps:%s)", n, steps.summary())
	}
}

// forward records every update from the source and passes it on to
// PodConfig, until ctx ends.
func forward(ctx context.Context, from <-chan podconfig.PodUpdate, to chan<- podconfig.PodUpdate, log *pushLog) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-from:
			log.push(u.Pods, "")
			log.addOp(u.Op)
			select {
			case to <- u:
			case <-ctx.Done():
				return
			}
		}
	}
}

// mergedLog records PodConfig's published updates as "OP namespace/name",
// one entry per pod. Safe for concurrent use.
type mergedLog struct {
	mu      sync.Mutex
	entries []string
	taken   int // entries already returned by waitFor
	others  []string
}

func (l *mergedLog) read(ctx context.Context, updates <-chan podconfig.PodUpdate) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-updates:
			l.mu.Lock()
			for _, p := range u.Pods {
				l.entries = append(l.entries, u.Op.String()+" "+podconfig.FullName(p))
				if p.Spec.NodeName != node {
					l.others = append(l.others, podconfig.FullName(p)+" on "+p.Spec.NodeName)
				}
			}
			l.mu.Unlock()
		}
	}
}

// waitFor waits (up to wait) until at least n entries came after those it
// returned before, and returns all of them: more than n is a failure the
// caller's diff shows.
func (l *mergedLog) waitFor(ctx context.Context, n int) []string {
	var got []string
	poll(ctx, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		got = slices.Clone(l.entries[l.taken:])
		return len(got) >= n
	})
	l.mu.Lock()
	l.taken += len(got)
	l.mu.Unlock()
	return got
}

func (l *mergedLog) foreign() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.others)
}

// testWatchPaths runs the script through a bare reflector and UndeltaStore
// over each way of watching the server serves.
func testWatchPaths(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	tests := []struct {
		name      string
		prefix    string // of the script's namespaces
		legacy    bool
		watchList bool
		// The server refuses the watch list, and the reflector lists.
		fallback bool
	}{
		{name: "watch=true", prefix: "param"},
		{name: "legacy /watch/ path", prefix: "legacy", legacy: true},
		{name: "streaming watch list", prefix: "stream", watchList: true},
		// The apiserver validates a request on the legacy path as a list,
		// for which sendInitialEvents is forbidden: 422 Invalid.
		{name: "watch list on the legacy path falls back to a list", prefix: "fallback", legacy: true, watchList: true, fallback: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScript(c, m.ns(tt.prefix))
			rv, _ := s.setup(t, ctx)
			initial, _, err := serverState(ctx, c)
			if err != nil {
				t.Fatalf("list pods as admin: %v", err)
			}
			trips := &tripLog{}
			lw := nodeListWatch(m.newClient(t, c, c.NodeToken, trips))
			lw.LegacyWatchPath = tt.legacy
			r, pushes, steps := runReflector(t, ctx, lw, cache.ReflectorOptions{WatchList: tt.watchList})

			waitConverged(t, ctx, c, pushes, rv)
			for _, step := range s.steps() {
				if rv, err = step.do(ctx); err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				waitConverged(t, ctx, c, pushes, rv)
			}
			checkPushes(t, pushes.all())
			if got := r.LastSyncResourceVersion(); !atLeast(got, rv) {
				t.Errorf("LastSyncResourceVersion: got %s, want at least the last write's %s", got, rv)
			}

			// The first state came as one Replace, before any event.
			first := pushes.all()[0]
			if diff := cmp.Diff(initial, lines(first.Pods)); diff != "" {
				t.Errorf("first push (-server's state at the start +pushed):\n%s", diff)
			}
			all := steps.all()
			replace := slices.IndexFunc(all, func(s cache.Step) bool { return s.Kind == cache.StepReplace })
			event := slices.IndexFunc(all, func(s cache.Step) bool { return s.Kind == cache.StepEvent })
			if replace < 0 || (event >= 0 && event < replace) {
				t.Errorf("want a Replace before the first event; steps:%s", steps.summary())
			}
			wantSteps := map[cache.StepKind]int{
				cache.StepList: 1, cache.StepWatchList: 0, cache.StepReplace: 1,
				cache.StepRelist: 0, cache.StepFallbackList: 0,
			}
			switch {
			case tt.fallback:
				wantSteps[cache.StepWatchList], wantSteps[cache.StepFallbackList] = 1, 1
			case tt.watchList:
				wantSteps[cache.StepList], wantSteps[cache.StepWatchList] = 0, 1
			}
			gotSteps := map[cache.StepKind]int{}
			for k := range wantSteps {
				gotSteps[k] = steps.count(k)
			}
			if diff := cmp.Diff(wantSteps, gotSteps); diff != "" {
				t.Errorf("step counts (-want +got):\n%s\nsteps:%s", diff, steps.summary())
			}
			if tt.fallback {
				checkFallback(t, steps.all())
			}
			checkTrips(t, trips.all(), tt.legacy, tt.watchList, tt.fallback)
		})
	}
}

// checkFallback checks that the fallback step says why: the server's 422.
func checkFallback(t *testing.T, steps []cache.Step) {
	t.Helper()
	i := slices.IndexFunc(steps, func(s cache.Step) bool { return s.Kind == cache.StepFallbackList })
	if i < 0 {
		t.Errorf("no fallback step")
		return
	}
	if se, ok := rest.AsStatusError(steps[i].Err); !ok || se.Status.Code != http.StatusUnprocessableEntity {
		t.Errorf("fallback error %v: want a *rest.StatusError with code 422", steps[i].Err)
	}
	t.Logf("fallback: %v", steps[i].Err)
}

// checkTrips checks what went on the wire: every watch went the chosen way,
// selected node-a's pods and was answered 200 over HTTP/2 (the first 422
// when the watch list is refused); a watch list sent no list at all.
func checkTrips(t *testing.T, trips []trip, legacy, watchList, fallback bool) {
	t.Helper()
	watches, lists := 0, 0
	for i, tr := range trips {
		if !tr.isWatch() {
			lists++
			if watchList && !fallback {
				t.Errorf("request %d: %s %s?%s, want no list with a watch list", i, tr.Method, tr.Path, tr.Query.Encode())
			}
			continue
		}
		watches++
		wantPath := "/api/v1/pods"
		if legacy {
			wantPath = "/api/v1/watch/pods"
		}
		if tr.Path != wantPath || (tr.Query.Get("watch") == "true") == legacy {
			t.Errorf("watch %d: got %s?%s, want path %s with watch=true only without the legacy prefix", i, tr.Path, tr.Query.Encode(), wantPath)
		}
		if got := tr.Query.Get("fieldSelector"); got != "spec.nodeName="+node {
			t.Errorf("watch %d: fieldSelector %q, want spec.nodeName=%s", i, got, node)
		}
		wantStatus := http.StatusOK
		if fallback && watches == 1 {
			wantStatus = http.StatusUnprocessableEntity
		}
		if tr.Proto != "HTTP/2.0" || tr.Status != wantStatus {
			t.Errorf("watch %d: answered %d over %s, want %d over HTTP/2.0", i, tr.Status, tr.Proto, wantStatus)
		}
		if watches == 1 && watchList && tr.Query.Get("sendInitialEvents") != "true" {
			t.Errorf("first watch %s?%s: want sendInitialEvents=true", tr.Path, tr.Query.Encode())
		}
	}
	if watches == 0 {
		t.Errorf("no watch request among %d requests", len(trips))
	}
	if fallback && lists != 1 {
		t.Errorf("lists after the refused watch list: got %d, want 1", lists)
	}
	t.Logf("requests: %d watches, %d lists: %s", watches, lists, describeTrips(trips))
}

func describeTrips(trips []trip) string {
	var parts []string
	for _, tr := range trips {
		parts = append(parts, tr.Method+" "+tr.Path+"?"+tr.Query.Encode()+" -> "+tr.Proto)
	}
	return strings.Join(parts, "; ")
}
