package check

import (
	"context"
	"fmt"
	"slices"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// InitialEventsEnd is the annotation of the bookmark that ends a watch
// list's initial events.
const InitialEventsEnd = "k8s.io/initial-events-end"

// checkBookmarkBeforeTimeout: a watch that asks for bookmarks and carries
// changes gets a bookmark before its timeoutSeconds ends it, so that a
// client resumes from a recent version. The apiserver sends that bookmark
// (about 2 s before the timeout) only once its version has moved past the
// watch's: on a watch that carried nothing, none is due.
func checkBookmarkBeforeTimeout(ctx context.Context, e *env) Outcome {
	req := fmt.Sprintf("a watch with allowWatchBookmarks=true and timeoutSeconds=%d that carries changes gets a BOOKMARK before the server ends it (the apiserver sends one about 2 s before the timeout)", e.opts.WatchSeconds)
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return requestFailed(req, "the list to take a resourceVersion from", err, base.x)
	}
	var made changes
	w := e.watch(ctx, watchSpec{
		mod:    func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) },
		onOpen: e.causeChanges(1, &made),
		until:  func(s seen) bool { return s.ev.Type == watch.Bookmark },
	})
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	if i := slices.IndexFunc(w.events, func(s seen) bool { return s.ev.Type == watch.Bookmark }); i >= 0 {
		return pass("a BOOKMARK at %s came %.1f s after the request%s", w.events[i].rv(), w.events[i].at.Seconds(), made.note()).with(w.at(i))
	}
	changed := slices.IndexFunc(w.events, func(s seen) bool { return s.ev.Type != watch.Error })
	if changed < 0 {
		return notApplicable("nothing changed on the watch while it was open, so no bookmark was due (the apiserver sends one only once its version has moved; --write makes a change)%s", made.note()).with(w.x)
	}
	last := len(w.events) - 1
	return fail(req, fmt.Sprintf("no BOOKMARK though %d changes came, the last at %s; %s", len(w.events), w.events[last].rv(), w.x.End), w.at(last))
}

// checkBookmarkMetadataOnly: a bookmark's object carries only
// metadata.resourceVersion (and, ending a watch list's initial events,
// the initial-events-end annotation). It judges the bookmarks of the run's
// watch list, which ends its initial events with one.
func checkBookmarkMetadataOnly(ctx context.Context, e *env) Outcome {
	const req = "a BOOKMARK's object carries only metadata.resourceVersion (a comparable version), and no other metadata but the " + InitialEventsEnd + " annotation"
	run, x, err := e.watchList(ctx)
	if err != nil {
		return notApplicable("no watch list to take bookmarks from: %v", err).with(x)
	}
	w, n := run.w, 0
	for i, s := range w.events {
		if s.ev.Type != watch.Bookmark {
			continue
		}
		n++
		if why := bookmarkExtra(s.ev.Raw); why != "" {
			return fail(req, "the BOOKMARK "+why, w.at(i))
		}
	}
	if n == 0 {
		return notApplicable("no BOOKMARK came to examine").with(w.x)
	}
	return pass("%d BOOKMARK with metadata.resourceVersion alone", n).with(w.x)
}

// bookmarkExtra says what a bookmark event carries beyond its version, ""
// when nothing.
func bookmarkExtra(raw []byte) string {
	md, err := eventMetadata(raw)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	if _, cerr := meta.CompareResourceVersions(md.rv, md.rv); cerr != nil {
		return "has no comparable metadata.resourceVersion: " + cerr.Error()
	}
	for _, m := range md.members {
		if m != "resourceVersion" && m != "annotations" {
			return fmt.Sprintf("carries metadata.%s", m)
		}
	}
	for k := range md.annotations {
		if k != InitialEventsEnd {
			return fmt.Sprintf("carries the annotation %q", k)
		}
	}
	return ""
}

// eventMeta is an event object's metadata as written: its member names,
// resourceVersion and annotations.
type eventMeta struct {
	members     []string
	rv          string
	annotations map[string]string
}

// eventMetadata reads the metadata of an event's object with podwatch's
// JSON reader.
func eventMetadata(raw []byte) (eventMeta, error) {
	var md eventMeta
	var r jsonx.Reader
	r.Reset(raw)
	r.Object(func(k []byte) {
		if string(k) != "object" {
			r.Skip()
			return
		}
		r.Object(func(k []byte) {
			if string(k) != "metadata" {
				r.Skip()
				return
			}
			r.Object(func(k []byte) {
				name := string(k)
				md.members = append(md.members, name)
				switch name {
				case "resourceVersion":
					md.rv = r.String()
				case "annotations":
					md.annotations = jsonx.ReadStringMap(&r)
				default:
					r.Skip()
				}
			})
		})
	})
	return md, r.Err()
}
