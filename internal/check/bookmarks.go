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

// checkBookmarkBeforeTimeout: a watch that asks for bookmarks gets one
// before its timeoutSeconds ends it, so that a quiet watch can resume from
// a recent version.
func checkBookmarkBeforeTimeout(ctx context.Context, e *env) Outcome {
	req := fmt.Sprintf("a watch with allowWatchBookmarks=true and timeoutSeconds=%d gets a BOOKMARK before the server ends it (the apiserver sends one shortly before the timeout)", e.opts.WatchSeconds)
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return fail(req, "the list to take a resourceVersion from failed: "+err.Error(), base.x)
	}
	w := e.watch(ctx, watchSpec{
		mod:   func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) },
		until: func(s seen) bool { return s.ev.Type == watch.Bookmark },
	})
	if w.err != nil {
		return fail(req, "the watch failed: "+w.err.Error(), w.x)
	}
	if i := slices.IndexFunc(w.events, func(s seen) bool { return s.ev.Type == watch.Bookmark }); i >= 0 {
		return pass("a BOOKMARK at %s came %.1f s after the request", w.events[i].rv(), w.events[i].at.Seconds()).with(w.at(i))
	}
	return fail(req, fmt.Sprintf("no BOOKMARK among %d events; %s", len(w.events), w.x.End), w.at(len(w.events)-1))
}

// checkBookmarkMetadataOnly: a bookmark's object carries only
// metadata.resourceVersion (and, ending a watch list's initial events,
// the initial-events-end annotation).
func checkBookmarkMetadataOnly(ctx context.Context, e *env) Outcome {
	const req = "a BOOKMARK's object carries only metadata.resourceVersion (a comparable version), and no other metadata but the " + InitialEventsEnd + " annotation"
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return fail(req, "the list to take a resourceVersion from failed: "+err.Error(), base.x)
	}
	w := e.watch(ctx, watchSpec{
		mod:   func(r *rest.Request) { r.ResourceVersion(rv).AllowWatchBookmarks(true) },
		until: func(s seen) bool { return s.ev.Type == watch.Bookmark },
	})
	if w.err != nil {
		return fail(req, "the watch failed: "+w.err.Error(), w.x)
	}
	n := 0
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
