package check

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// causeChanges returns an onOpen hook that makes n changes with throwaway
// pods (nothing without Options.Write) and reports the pods it made on got.
func (e *env) causeChanges(n int, got *changes) func(context.Context) {
	if e.pods == nil {
		return nil
	}
	return func(ctx context.Context) {
		var last *api.Pod
		for range n {
			_, err := e.pods.change(ctx, &last)
			got.mu.Lock()
			if err != nil {
				got.err = err
				got.mu.Unlock()
				return
			}
			got.rvs = append(got.rvs, last.Metadata.ResourceVersion)
			got.name = last.Metadata.Name
			got.mu.Unlock()
		}
	}
}

// changes is what causeChanges did, written by the hook while the watch
// reads: the watch's until may ask is.
type changes struct {
	mu   sync.Mutex
	name string
	rvs  []string
	err  error
}

// is reports whether s is an event (not a bookmark) of the pod changed.
func (c *changes) is(s seen) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name != "" && s.ev.Type != watch.Bookmark && s.ev.Object != nil && s.ev.Object.Metadata.Name == c.name
}

// cameOn reports whether the last change made came as an event of w.
func (c *changes) cameOn(w watched) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rvs) == 0 {
		return false
	}
	want := c.rvs[len(c.rvs)-1]
	for _, s := range w.events {
		if s.ev.Type != watch.Bookmark && s.ev.Object != nil && s.ev.Object.Metadata.Name == c.name && s.rv() == want {
			return true
		}
	}
	return false
}

func (c *changes) note() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return "; making a change failed: " + c.err.Error()
	case len(c.rvs) == 0:
		return " (read-only: no change was made)"
	}
	return fmt.Sprintf(" (%d changes made, the last at %s)", len(c.rvs), c.rvs[len(c.rvs)-1])
}

// errorEvent returns the index of the first ERROR event, or -1.
func (w watched) errorEvent() int {
	for i, s := range w.events {
		if s.ev.Type == watch.Error {
			return i
		}
	}
	return -1
}

// expiredAtOnce reports whether w's first event is an ERROR saying its
// resourceVersion is too old (410).
func expiredAtOnce(w watched) bool {
	return w.err == nil && len(w.events) > 0 && w.events[0].ev.Type == watch.Error && rest.IsGone(w.events[0].ev.Err)
}

// checkWatchFromRV: a watch from a list's resourceVersion carries only
// changes after it (and, with --write, the change made while it is open).
func checkWatchFromRV(ctx context.Context, e *env) Outcome {
	const req = "a watch from resourceVersion N answers 200 and sends only changes after N (bookmarks at N or later), including every change made while it is open"
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return requestFailed(req, "the list to take N from", err, base.x)
	}
	var made changes
	w := e.watch(ctx, watchSpec{
		mod:    func(r *rest.Request) { r.ResourceVersion(rv) },
		onOpen: e.causeChanges(1, &made),
		until:  made.is,
	})
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	if i := w.errorEvent(); i >= 0 {
		return fail(req, fmt.Sprintf("the watch from %s got an ERROR event: %v", rv, w.events[i].ev.Err), w.at(i))
	}
	if w.endErr != nil {
		return fail(req, "the watch broke off: "+w.endErr.Error(), w.at(len(w.events)-1))
	}
	for i, s := range w.events {
		c, err := meta.CompareResourceVersions(s.rv(), rv)
		switch {
		case err != nil:
			return fail(req, fmt.Sprintf("event %d's resourceVersion: %v", i, err), w.at(i))
		case c < 0 || (c == 0 && s.ev.Type != watch.Bookmark):
			return fail(req, fmt.Sprintf("event %d (%s) is at %s, not after the %s watched from", i, s.ev.Type, s.rv(), rv), w.at(i))
		}
	}
	if len(made.rvs) > 0 && !made.cameOn(w) {
		return fail(req, fmt.Sprintf("the change of %s at %s, made while the watch was open, did not come on it", made.name, made.rvs[0]), w.at(len(w.events)-1))
	}
	return pass("%d events after %s%s", len(w.events), rv, made.note()).with(w.x)
}

// checkWatchPathForms: ?watch=true and the legacy /watch/ path prefix both
// open a watch.
func checkWatchPathForms(ctx context.Context, e *env) Outcome {
	const req = "both /api/v1/pods?watch=true and the legacy /api/v1/watch/pods open a watch: 200 and a stream of events"
	var xs []*Exchange
	for _, legacy := range []bool{false, true} {
		// A fresh version for each: the first watch's may be gone by now.
		rv, base, err := e.consistentRV(ctx)
		if err != nil {
			return requestFailed(req, "the list to take a resourceVersion from", err, base.x)
		}
		w := e.watch(ctx, watchSpec{
			legacy: legacy,
			mod:    func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) },
			window: min(e.watchTimeout(), 2e9),
		})
		form := "?watch=true"
		if legacy {
			form = "the /watch/ prefix"
		}
		if w.err != nil {
			return requestFailed(req, "the watch by "+form, w.err, w.x)
		}
		if w.endErr != nil {
			return fail(req, fmt.Sprintf("the watch by %s broke off: %v", form, w.endErr), w.at(len(w.events)-1))
		}
		if i := w.errorEvent(); i >= 0 {
			return fail(req, fmt.Sprintf("the watch by %s got an ERROR event: %v", form, w.events[i].ev.Err), w.at(i))
		}
		xs = append(xs, w.x)
	}
	return pass("both forms answered %d with a watch stream", xs[1].Status).with(xs...)
}

// checkWatchTimeout: the server ends a watch cleanly at its timeoutSeconds.
//
// The times are the check's own, from sending the request to the body's
// end: the server's clock for the timeout starts after the request arrives,
// so an honest server can only look later, never earlier. The check fails a
// watch still open Options.Grace after its timeout (generous: load delays an
// end by milliseconds, an ignored timeout by minutes), and one ended in less
// than half its timeout (load never hastens an end).
func checkWatchTimeout(ctx context.Context, e *env) Outcome {
	t := e.watchTimeout()
	req := fmt.Sprintf("a watch with timeoutSeconds=%d ends cleanly (at an event boundary) about %d s after it was asked, and no later than %s after", e.opts.WatchSeconds, e.opts.WatchSeconds, t+e.opts.Grace)
	var rv string
	var w watched
	// A server whose history moves past the list's version before the watch
	// is asked (a compaction between the two; a replayed recording's clock)
	// ends the watch with a 410 at once: that says nothing of its timeout,
	// so a second list and watch are asked once.
	for try := 0; try < 2 && (try == 0 || expiredAtOnce(w)); try++ {
		var base listed
		var err error
		if rv, base, err = e.consistentRV(ctx); err != nil {
			return requestFailed(req, "the list to take a resourceVersion from", err, base.x)
		}
		// Bookmarks give the evidence frames to point at on a quiet watch.
		w = e.watch(ctx, watchSpec{mod: func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) }})
	}
	last := len(w.events) - 1
	switch {
	case w.err != nil:
		return requestFailed(req, "the watch", w.err, w.x)
	case w.endErr != nil:
		return fail(req, "the watch broke off instead of ending cleanly: "+w.endErr.Error(), w.at(last))
	case !w.ended:
		return fail(req, fmt.Sprintf("timeoutSeconds=%d ignored: the watch was still open %.1f s after it was asked", e.opts.WatchSeconds, w.endAt.Seconds()), w.at(last))
	case w.endAt < t/2 && w.errorEvent() < 0:
		return fail(req, fmt.Sprintf("the watch ended %.1f s after it was asked, well before its timeoutSeconds=%d", w.endAt.Seconds(), e.opts.WatchSeconds), w.at(last))
	case w.errorEvent() >= 0:
		return fail(req, fmt.Sprintf("the watch from %s got an ERROR event: %v", rv, w.events[w.errorEvent()].ev.Err), w.at(w.errorEvent()))
	}
	return pass("timeoutSeconds=%d: ended cleanly %.1f s after it was asked", e.opts.WatchSeconds, w.endAt.Seconds()).with(w.x)
}

// checkWatchRVOrder: on one stream, resourceVersions never go back: each
// change is newer than every event before it, a bookmark no older.
func checkWatchRVOrder(ctx context.Context, e *env) Outcome {
	const req = "on one watch stream each change's resourceVersion is newer than every event's before it, and a bookmark's is no older"
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return requestFailed(req, "the list to take a resourceVersion from", err, base.x)
	}
	var made changes
	w := e.watch(ctx, watchSpec{
		mod:    func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) },
		onOpen: e.causeChanges(3, &made),
		window: e.watchTimeout(),
	})
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	if i, prev := goesBack(w.events); i >= 0 {
		return fail(req, fmt.Sprintf("event %d (%s) is at %s, older than event %d's %s (at byte %d)", i, w.events[i].ev.Type, w.events[i].rv(), prev, w.events[prev].rv(), w.events[prev].ev.Offset), w.at(i))
	}
	if len(w.events) < 2 {
		return notApplicable("%d events in %s: nothing to order%s", len(w.events), e.watchTimeout(), made.note()).with(w.x)
	}
	return pass("%d events in order from %s to %s%s", len(w.events), w.events[0].rv(), w.events[len(w.events)-1].rv(), made.note()).with(w.x)
}

// goesBack returns the first event older than one before it, and that one;
// -1 when none is. ERROR events carry no version and are skipped.
func goesBack(events []seen) (int, int) {
	newest := -1
	for i, s := range events {
		if s.ev.Type == watch.Error {
			continue
		}
		if newest >= 0 {
			c, err := meta.CompareResourceVersions(s.rv(), events[newest].rv())
			if err != nil || c < 0 || (c == 0 && s.ev.Type != watch.Bookmark) {
				return i, newest
			}
		}
		newest = i
	}
	return -1, -1
}

// checkWatchTooOld: a watch from an old version gets 410 (outright or as
// an ERROR event) once the server no longer has that version, and never
// the current state in its place. The version is the oldest a listed item
// carries: an object unchanged since then exists at it, so a watch from
// there that sends that object as ADDED (a state, not a change after the
// version) gives, in a 200, the data a 410 was due for. A server that
// still has the version sends only changes after it, and passes too.
func checkWatchTooOld(ctx context.Context, e *env) Outcome {
	const req = "a watch from a resourceVersion the server no longer has is answered 410 (Gone or Expired), as the HTTP status or as an ERROR event; while it has it, only changes after it: never the current state in place of a 410"
	base := e.list(ctx, e.json, nil)
	if base.err != nil {
		return requestFailed(req, "the list to take an old version from", base.err, base.x)
	}
	old, oldest := "", ""
	for _, p := range base.list.Items {
		if c, err := meta.CompareResourceVersions(p.Metadata.ResourceVersion, old); old == "" || (err == nil && c < 0) {
			old, oldest = p.Metadata.ResourceVersion, key(p)
		}
	}
	if old == "" {
		return notApplicable("no pod listed: no old version to watch from (--write makes one, but a new one)").with(base.x)
	}
	w := e.watch(ctx, watchSpec{
		mod:    func(r *rest.Request) { r.ResourceVersion(old) },
		window: min(e.watchTimeout(), 3*time.Second),
	})
	if rest.IsGone(w.err) {
		return pass("a watch from %s (%s's version) was answered %d", old, oldest, w.x.Status).with(w.x)
	}
	if w.err != nil {
		return requestFailed(req, "the watch from "+old, w.err, w.x)
	}
	for i, s := range w.events {
		if s.ev.Type == watch.Error {
			if i == 0 && rest.IsGone(s.ev.Err) {
				return pass("a watch from %s (%s's version) got 200 and an ERROR event with 410", old, oldest).with(w.at(0))
			}
			return fail(req, fmt.Sprintf("a watch from %s got an ERROR event that is not a 410 at its start: %v", old, s.ev.Err), w.at(i))
		}
		if c, err := meta.CompareResourceVersions(s.rv(), old); s.ev.Type != watch.Bookmark && (err != nil || c <= 0) {
			return fail(req, fmt.Sprintf("a watch from %s answered 200 and sent %s of %s at %s, a state at or before %s, not a change after it: where the server no longer has %s it owes a 410", old, s.ev.Type, key(s.ev.Object), s.rv(), old, old), w.at(i))
		}
	}
	return pass("the server still has %s (%s's version): the watch from it sent %d changes after it", old, oldest, len(w.events)).with(w.x)
}
