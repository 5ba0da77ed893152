package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/fault"
)

// defaultWatchTimeout is how long a watch without timeoutSeconds lasts.
const defaultWatchTimeout = 30 * time.Minute

// request is one list or watch being served. out is the body, through the
// request's fault if it has one.
type request struct {
	ctx  context.Context // the request's, ended at a watch's timeout
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	opts apiwire.PodsRequest
	ns   string
	node string
	out  io.Writer
}

func (q *request) fail(code int, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	q.s.logf("%s: %d %s: %s", q.r.URL.RequestURI(), code, reason, msg)
	writeStatus(q.w, code, reason, msg)
}

func (q *request) failWith(st apiwire.Status) {
	q.s.logf("%s: %d %s: %s", q.r.URL.RequestURI(), st.Code, st.Reason, st.Message)
	st.Write(q.w)
}

// send writes b to the body and flushes. A fault that cut the body aborts the
// handler, so the client sees the connection end mid-body; false means stop.
func (q *request) send(b []byte) bool {
	_, err := q.out.Write(b)
	if errors.Is(err, fault.ErrCut) {
		q.s.logf("%s: cut", q.r.URL.RequestURI())
		fault.Abort()
	}
	if err != nil {
		return false
	}
	q.w.(http.Flusher).Flush()
	return true
}

// keep says whether p belongs to the request's namespace and node.
func (q *request) keep(p Pod) bool {
	return (q.ns == "" || p.Namespace == q.ns) && (q.node == "" || p.Node == q.node)
}

func (q *request) state(rv int64) []Pod {
	pods, _ := q.s.hist.StateAt(rv, q.node)
	out := pods[:0]
	for _, p := range pods {
		if q.keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// list serves a list with the apiserver's resourceVersion semantics: unset is
// the newest state; "0" any state (maybe stale, limit ignored); N with
// NotOlderThan (or without limit) the newest state if not older than N; N with
// Exact (or legacy: with limit) the state at N, 410 if compacted. The
// options were checked as the apiserver checks them (apiwire.ParsePods).
func (q *request) list() {
	at, start, limit, ok := q.listSnapshot(q.opts.Limit)
	if ok {
		q.writeList(at, start, limit)
	}
}

// listSnapshot picks the version to list at, the key to continue after and
// the page size, or answers the failure and returns ok false.
func (q *request) listSnapshot(limit int64) (at int64, start string, pageLimit int64, ok bool) {
	rvParam, match, cont := q.opts.ResourceVersion, q.opts.Match, q.opts.Continue
	last, compacted := q.s.RV(), q.s.Compacted()
	switch {
	case cont != "":
		t, err := apiwire.DecodeContinue(cont)
		rv, rvErr := strconv.ParseInt(t.RV, 10, 64)
		if err != nil || rvErr != nil {
			st := apiwire.BadContinue(apiwire.ErrBadContinue)
			q.failWith(st)
			return 0, "", 0, false
		}
		if rv < compacted {
			q.fail(http.StatusGone, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
			return 0, "", 0, false
		}
		return rv, t.After, limit, true
	case rvParam == "":
		return last, "", limit, true
	case rvParam == "0":
		return max(compacted, last-q.s.opts.StaleZero), "", 0, true
	}
	n, _ := strconv.ParseInt(rvParam, 10, 64) // ParsePods checked it is a number
	if n > last {
		q.fail(http.StatusGatewayTimeout, "Timeout", "Too large resource version: %d, current: %d", n, last)
		return 0, "", 0, false
	}
	if exact := match == "Exact" || (match == "" && limit > 0); exact {
		if n < compacted {
			q.fail(http.StatusGone, "Expired", "%s", goneMessage(n, compacted))
			return 0, "", 0, false
		}
		return n, "", limit, true
	}
	return last, "", limit, true
}

// writeList writes the page of the state at rv after key start, one item a
// line (so that a fault counts items as it counts events).
func (q *request) writeList(rv int64, start string, limit int64) {
	pods := q.state(rv)
	i := 0
	for i < len(pods) && start != "" && pods[i].Key() <= start {
		i++
	}
	page := pods[i:]
	md := apiwire.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10)}
	if limit > 0 && int64(len(page)) > limit {
		page = page[:limit]
		md.Continue = apiwire.Continue{RV: md.ResourceVersion, After: page[len(page)-1].Key()}.Encode()
		left := int64(len(pods) - i - len(page))
		md.RemainingItemCount = &left
	}
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(http.StatusOK)
	if !q.send(append(apiwire.ListHead("PodList", md), '\n')) {
		return
	}
	for j, p := range page {
		line := p.JSON()
		if j < len(page)-1 {
			line = append(line, ',')
		}
		if !q.send(append(line, '\n')) {
			return
		}
	}
	q.send([]byte(apiwire.ListTail + "\n"))
}

// watch serves a watch: from a version (410 if compacted, as an answer or an
// ERROR event), or from "0"/unset with the current state as ADDED events first,
// or as a watch list (sendInitialEvents) whose initial events the
// initial-events-end bookmark closes when bookmarks are allowed; then every
// change after, bookmarks when idle, until timeoutSeconds.
func (q *request) watch() {
	sendInitial, ok := q.watchList()
	if !ok {
		return
	}
	last, compacted := q.s.RV(), q.s.Compacted()
	cursor, initial, gone := last, true, false
	if rv := q.opts.ResourceVersion; rv != "" && rv != "0" {
		n, _ := strconv.ParseInt(rv, 10, 64) // ParsePods checked it is a number
		if !sendInitial {
			cursor, initial, gone = n, false, n < compacted
		}
	}
	if gone && !q.s.opts.GoneAsEvent {
		q.fail(http.StatusGone, "Expired", "%s", goneMessage(cursor, compacted))
		return
	}
	q.w.Header().Set("Content-Type", "application/json")
	q.w.WriteHeader(http.StatusOK)
	q.w.(http.Flusher).Flush()
	if gone {
		q.s.logf("%s: ERROR 410", q.r.URL.RequestURI())
		q.send(apiwire.ErrorEvent(apiwire.Gone(goneMessage(cursor, compacted))))
		return
	}
	if initial {
		for _, p := range q.state(cursor) {
			if !q.send(apiwire.Event(apiwire.Added, p.JSON())) {
				return
			}
		}
		if sendInitial && q.opts.AllowBookmarks && !q.send(apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(strconv.FormatInt(cursor, 10), true))) {
			return
		}
	}
	q.follow(q.ctx, cursor, q.opts.AllowBookmarks)
}

// watchList says whether the request is a watch list the server serves as
// one (Options.WatchList), or answers the refusal of a server without them.
func (q *request) watchList() (sendInitial, ok bool) {
	switch {
	case !q.opts.SendInitialEvents:
		return false, true
	case q.s.opts.WatchList == "refuse":
		q.fail(http.StatusUnprocessableEntity, "Invalid", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
		return false, false
	case q.s.opts.WatchList == "ignore":
		return false, true
	}
	return true, true
}

// watchTimeout is how long a watch asked to last.
func watchTimeout(opts apiwire.PodsRequest) time.Duration {
	if opts.Timeout <= 0 {
		return defaultWatchTimeout
	}
	return opts.Timeout
}

// bookmarkLead is how long before a watch's timeout the apiserver sends its
// last bookmark, so that a client resumes from a recent version.
const bookmarkLead = 2 * time.Second

// follow sends every change after cursor until ctx ends, and a bookmark at
// the last version sent whenever BookmarkEvery passes and once, as the
// apiserver does, bookmarkLead before ctx's deadline (the watch's timeout)
// if the watch has moved on from where it started.
func (q *request) follow(ctx context.Context, cursor int64, bookmarks bool) {
	start := cursor
	tick := time.NewTicker(q.s.opts.BookmarkEvery)
	defer tick.Stop()
	var beforeEnd <-chan time.Time
	// As the apiserver's, only a watch longer than the lead gets it.
	if dl, ok := ctx.Deadline(); ok && bookmarks && time.Until(dl) > bookmarkLead {
		t := time.NewTimer(max(time.Until(dl)-bookmarkLead, 0))
		defer t.Stop()
		beforeEnd = t.C
	}
	for {
		changes, now, changed := q.s.since(cursor)
		for _, c := range changes {
			if typ := q.eventType(c); typ != "" && !q.send(apiwire.Event(typ, c.Pod.JSON())) {
				return
			}
		}
		cursor = now
		select {
		case <-changed:
		case <-tick.C:
			if bookmarks && !q.send(apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(strconv.FormatInt(cursor, 10), false))) {
				return
			}
		case <-beforeEnd:
			beforeEnd = nil
			if cursor != start && !q.send(apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(strconv.FormatInt(cursor, 10), false))) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// eventType is what a watcher of this request's pods sees of c: a pod that
// comes into view is ADDED, one that leaves it (or is deleted) DELETED;
// "" for a change out of view.
func (q *request) eventType(c Change) string {
	prev, had := c.Prev()
	was := had && q.keep(prev)
	is := c.Op != Delete && q.keep(c.Pod)
	switch {
	case was && is:
		return apiwire.Modified
	case is:
		return apiwire.Added
	case was:
		return apiwire.Deleted
	}
	return ""
}
