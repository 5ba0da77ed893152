package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/watch"
)

// testBookmarks watches with a 5 s server timeout. The apiserver's watch
// cache sends a BOOKMARK shortly (about 2 s) before a watch's deadline, and
// then ends the watch cleanly; its own periodic bookmarks come only about
// every minute, so the short timeout is the quick honest way to see them.
// The test checks that a bookmark moves the reflector's resourceVersion past
// a change it never sees (a pod on another node) without a push, and that
// each timeout resumes the watch from there without a relist.
func testBookmarks(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("bookmarks")
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	rv, err := c.CreatePod(ctx, ns, "pod", node, nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	trips := &tripLog{}
	lw := nodeListWatch(m.newClient(t, c, c.NodeToken, trips))
	r, pushes, steps := runReflector(t, ctx, lw, cache.ReflectorOptions{
		MinWatchTimeout: 5 * time.Second,
		// No jitter: every watch asks for timeoutSeconds=5.
		Rand: func() float64 { return 0 },
	})
	waitConverged(t, ctx, c, pushes, rv)
	pushed := len(pushes.all())

	unseen, err := c.CreatePod(ctx, ns, "elsewhere", otherNode, nil)
	if err != nil {
		t.Fatalf("CreatePod on %s: %v", otherNode, err)
	}
	// The apiserver sends the bookmark before a timeout only once its watch
	// cache has moved past the watch; under load the cache can lag the one
	// write, so the pod on the other node keeps changing until the
	// reflector's version passes it (none of it is for this node).
	stopChurn := churn(t, ctx, c, ns, "elsewhere")
	reached := poll(ctx, func() bool { return atLeast(r.LastSyncResourceVersion(), unseen) })
	stopChurn()
	if !reached {
		t.Fatalf("resourceVersion did not reach %s (a write on %s) within %s: at %s; steps:%s",
			unseen, otherNode, wait, r.LastSyncResourceVersion(), steps.summary())
	}
	if !poll(ctx, func() bool { return steps.count(cache.StepWatchEnded) >= 2 }) {
		t.Fatalf("fewer than 2 watches ended within %s; steps:%s", wait, steps.summary())
	}

	if got := len(pushes.all()); got != pushed {
		t.Errorf("pushes: got %d, want still %d: a bookmark must not touch the store", got, pushed)
	}
	all, times := steps.timed()
	advanced := false
	for _, s := range all {
		if s.Kind == cache.StepEvent && s.Event == watch.Bookmark && atLeast(s.ResourceVersion, unseen) {
			advanced = true
		}
	}
	if !advanced {
		t.Errorf("no bookmark at or past %s; steps:%s", unseen, steps.summary())
	}
	// Each watch after a clean end starts from the version the last one
	// ended at; nothing lists again.
	ended := ""
	for _, s := range all {
		switch s.Kind {
		case cache.StepWatchEnded:
			ended = s.ResourceVersion
		case cache.StepWatch:
			if ended != "" && s.ResourceVersion != ended {
				t.Errorf("watch resumed from %s, want %s where the last one ended", s.ResourceVersion, ended)
			}
		}
	}
	for _, k := range []cache.StepKind{cache.StepList, cache.StepRelist, cache.StepBackoff} {
		want := 0
		if k == cache.StepList {
			want = 1
		}
		if got := steps.count(k); got != want {
			t.Errorf("%s steps: got %d, want %d; steps:%s", k, got, want, steps.summary())
		}
	}
	for _, tr := range trips.all() {
		if tr.isWatch() && tr.Query.Get("timeoutSeconds") != "5" {
			t.Errorf("watch %s?%s: want timeoutSeconds=5", tr.Path, tr.Query.Encode())
		}
	}
	t.Logf("bookmark timing, relative to the watch request (timeoutSeconds=5):%s", bookmarkTiming(all, times))
}

// bookmarkTiming describes when, within each watch, bookmarks came and the
// watch ended, for the log.
func bookmarkTiming(steps []cache.Step, times []time.Time) string {
	var b strings.Builder
	var start time.Time
	for i, s := range steps {
		switch {
		case s.Kind == cache.StepWatch || s.Kind == cache.StepWatchList:
			start = times[i]
			fmt.Fprintf(&b, "\n  watch from rv %s:", s.ResourceVersion)
		case start.IsZero():
		case s.Kind == cache.StepEvent && s.Event == watch.Bookmark:
			fmt.Fprintf(&b, " bookmark rv %s at %.1fs;", s.ResourceVersion, times[i].Sub(start).Seconds())
		case s.Kind == cache.StepWatchEnded:
			fmt.Fprintf(&b, " ended at %.1fs", times[i].Sub(start).Seconds())
		}
	}
	return b.String()
}
