package check

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// watchListRun is the one streaming watch list the watch-list checks judge:
// its request, events, and the change made after its bookmark.
type watchListRun struct {
	asked string // the resourceVersion asked not to be older than
	w     watched
	end   int // index of the initial-events-end bookmark, -1 if none came
	made  changes
}

// isInitialEnd reports whether s is the bookmark that ends the initial events.
func isInitialEnd(s seen) bool {
	return s.ev.Type == watch.Bookmark && s.ev.Object != nil && s.ev.Object.Metadata.Annotations[InitialEventsEnd] == "true"
}

// runWatchList opens a watch list not older than a fresh consistent list,
// reads it to its end (or the window), and, with Options.Write, makes a
// change once the bookmark has come.
func (e *env) runWatchList(ctx context.Context) (*watchListRun, *Exchange, error) {
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return nil, base.x, err
	}
	run := &watchListRun{asked: rv, end: -1}
	bookmarked := make(chan struct{})
	var change func(context.Context)
	if cause := e.causeChanges(1, &run.made); cause != nil {
		change = func(ctx context.Context) {
			select {
			case <-bookmarked:
				cause(ctx)
			case <-ctx.Done():
			}
		}
	}
	closed := false
	run.w = e.watch(ctx, watchSpec{
		mod: func(r *rest.Request) {
			r.ResourceVersion(rv).ResourceVersionMatch("NotOlderThan").SendInitialEvents(true).AllowWatchBookmarks(true)
		},
		onOpen: change,
		until: func(s seen) bool {
			if isInitialEnd(s) && !closed {
				closed = true
				close(bookmarked)
			}
			// With a change made, reading ends once it came; else at the end.
			return closed && run.made.is(s)
		},
	})
	run.end = slices.IndexFunc(run.w.events, isInitialEnd)
	return run, nil, nil
}

// watchList runs the watch list once per battery, for the checks that
// judge it.
func (e *env) watchList(ctx context.Context) (*watchListRun, *Exchange, error) {
	if e.wl == nil && e.wlErr == nil {
		e.wl, e.wlX, e.wlErr = e.runWatchList(ctx)
	}
	return e.wl, e.wlX, e.wlErr
}

// refusals are the answers by which a server says clearly that it has no
// streaming watch list: a client then lists instead.
var refusals = map[int32]bool{http.StatusBadRequest: true, http.StatusMethodNotAllowed: true,
	http.StatusUnprocessableEntity: true, http.StatusNotImplemented: true}

// checkWatchListEnd: the initial events end with the bookmark annotated
// k8s.io/initial-events-end.
func checkWatchListEnd(ctx context.Context, e *env) Outcome {
	const req = "a watch list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan, allowWatchBookmarks=true) sends the state as ADDED events, then a BOOKMARK annotated " + InitialEventsEnd + `: "true"; or the server refuses it clearly (400, 405, 422, 501)`
	run, x, err := e.watchList(ctx)
	if err != nil {
		return requestFailed(req, "the list to take a resourceVersion from", err, x)
	}
	w := run.w
	if se, ok := rest.AsStatusError(w.err); ok && refusals[se.Status.Code] {
		return notApplicable("the server refuses the streaming watch list (%d %s: %s): a client lists instead", se.Status.Code, se.Status.Reason, se.Status.Message).with(w.x)
	}
	if w.err != nil {
		return requestFailed(req, "the watch list", w.err, w.x)
	}
	for i, s := range w.events {
		switch {
		case isInitialEnd(s):
			return pass("%d ADDED events, then the %s bookmark at %s, %.1f s after the request", i, InitialEventsEnd, s.rv(), s.at.Seconds()).with(w.at(i))
		case s.ev.Type == watch.Bookmark:
			return fail(req, fmt.Sprintf("after %d initial events a BOOKMARK at %s came without the annotation %s: a client waits for the end of the initial events forever", i, s.rv(), InitialEventsEnd), w.at(i))
		case s.ev.Type != watch.Added:
			return fail(req, fmt.Sprintf("event %d before the %s bookmark is %s, not ADDED", i, InitialEventsEnd, s.ev.Type), w.at(i))
		}
	}
	return fail(req, fmt.Sprintf("no BOOKMARK annotated %s after %d events (%s): a client waits for it forever", InitialEventsEnd, len(w.events), w.x.End), w.at(len(w.events)-1))
}

// checkWatchListRV: the bookmark's version is not older than asked, nor
// than any initial event's.
func checkWatchListRV(ctx context.Context, e *env) Outcome {
	const req = "the " + InitialEventsEnd + " bookmark's resourceVersion is not older than the resourceVersion asked for, nor than any initial event's: it is the state the initial events show"
	run, x, err := e.watchList(ctx)
	if err != nil || run.end < 0 {
		return notApplicable("no watch list bookmark to judge").with(x)
	}
	w, end := run.w, run.w.events[run.end]
	if c, err := meta.CompareResourceVersions(end.rv(), run.asked); err != nil || c < 0 {
		return fail(req, fmt.Sprintf("asked for a state not older than %s, the bookmark says %s", run.asked, end.rv()), w.at(run.end))
	}
	for i, s := range w.events[:run.end] {
		if c, err := meta.CompareResourceVersions(s.rv(), end.rv()); err != nil || c > 0 {
			return fail(req, fmt.Sprintf("initial event %d (%s) is at %s, newer than the bookmark's %s", i, key(s.ev.Object), s.rv(), end.rv()), w.at(i))
		}
	}
	return pass("asked not older than %s: the bookmark is at %s, after %d initial events", run.asked, end.rv(), run.end).with(w.at(run.end))
}

// checkWatchListStaysOpen: after its bookmark the watch list goes on as a
// watch, until its timeoutSeconds, and carries later changes.
func checkWatchListStaysOpen(ctx context.Context, e *env) Outcome {
	req := fmt.Sprintf("after the %s bookmark the stream stays open as a watch until its timeoutSeconds=%d, carrying every later change", InitialEventsEnd, e.opts.WatchSeconds)
	run, x, err := e.watchList(ctx)
	if err != nil || run.end < 0 {
		return notApplicable("no watch list bookmark to judge").with(x)
	}
	w, last := run.w, len(run.w.events)-1
	switch {
	case w.endErr != nil:
		return fail(req, "the stream broke off after the bookmark: "+w.endErr.Error(), w.at(last))
	case w.ended && w.endAt < e.watchTimeout()/2:
		return fail(req, fmt.Sprintf("the server ended the stream %.1f s after the request, %d events after the bookmark", w.endAt.Seconds(), last-run.end), w.at(last))
	}
	if len(run.made.rvs) > 0 && !run.made.cameOn(w) {
		return fail(req, fmt.Sprintf("the change of %s at %s, made after the bookmark, did not come on the stream", run.made.name, run.made.rvs[0]), w.at(last))
	}
	return pass("%d events after the bookmark; %s%s", last-run.end, w.x.End, run.made.note()).with(w.x)
}
