package check

import (
	"context"
	"fmt"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

// checkListConsistent: a list without resourceVersion is the most recent
// state, with a comparable resourceVersion no item is newer than.
func checkListConsistent(ctx context.Context, e *env) Outcome {
	const req = "a list without resourceVersion answers 200 with a PodList whose metadata.resourceVersion is a comparable version no item is newer than"
	l := e.list(ctx, e.json, nil)
	if o, bad := badList(req, l); bad {
		return o
	}
	return pass("PodList at resourceVersion %s with %d items", l.list.Metadata.ResourceVersion, len(l.list.Items)).with(l.x)
}

// badList fails a list that did not come, or whose versions are wrong.
func badList(req string, l listed) (Outcome, bool) {
	if l.err != nil {
		return requestFailed(req, "the list", l.err, l.x), true
	}
	if k := l.list.Kind; k != "" && k != "PodList" {
		return fail(req, fmt.Sprintf("the list's kind is %q, not PodList", k), l.x), true
	}
	rv := l.list.Metadata.ResourceVersion
	if _, err := meta.CompareResourceVersions(rv, rv); err != nil {
		return fail(req, "the list's metadata.resourceVersion: "+err.Error(), l.x), true
	}
	for i, p := range l.list.Items {
		c, err := meta.CompareResourceVersions(p.Metadata.ResourceVersion, rv)
		if err != nil || c > 0 {
			return fail(req, fmt.Sprintf("item %d (%s) has resourceVersion %q, not a version at or before the list's %s", i, key(p), p.Metadata.ResourceVersion, rv), l.x), true
		}
	}
	return Outcome{}, false
}

func key(p *api.Pod) string { return p.Metadata.Namespace + "/" + p.Metadata.Name }

// checkListRVZero: resourceVersion=0 (any version, from a cache) is
// served, with a real resourceVersion.
func checkListRVZero(ctx context.Context, e *env) Outcome {
	const req = `a list at resourceVersion "0" answers 200 with a state the server has (maybe stale), under a comparable resourceVersion`
	l := e.list(ctx, e.json, func(r *rest.Request) { r.ResourceVersion("0") })
	if o, bad := badList(req, l); bad {
		return o
	}
	return pass("PodList at resourceVersion %s with %d items", l.list.Metadata.ResourceVersion, len(l.list.Items)).with(l.x)
}

// checkListNotOlderThan: resourceVersionMatch=NotOlderThan gives a state
// at least as new as asked.
func checkListNotOlderThan(ctx context.Context, e *env) Outcome {
	const req = "a list at resourceVersion N with resourceVersionMatch=NotOlderThan answers a state whose resourceVersion is N or newer"
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return requestFailed(req, "the consistent list to take N from", err, base.x)
	}
	l := e.list(ctx, e.json, func(r *rest.Request) { r.ResourceVersion(rv).ResourceVersionMatch("NotOlderThan") })
	if o, bad := badList(req, l); bad {
		return o
	}
	got := l.list.Metadata.ResourceVersion
	if c, _ := meta.CompareResourceVersions(got, rv); c < 0 {
		return fail(req, fmt.Sprintf("asked for a state not older than %s, got one at %s", rv, got), l.x)
	}
	return pass("asked not older than %s, got %s", rv, got).with(l.x)
}

// checkListExact: resourceVersionMatch=Exact gives the state at exactly
// that version: the one a consistent list just showed there.
func checkListExact(ctx context.Context, e *env) Outcome {
	const req = "a list at resourceVersion N with resourceVersionMatch=Exact answers the state at N: resourceVersion N, and the items a list at N showed"
	rv, base, err := e.consistentRV(ctx)
	if err != nil {
		return requestFailed(req, "the consistent list to take N from", err, base.x)
	}
	l := e.list(ctx, e.json, func(r *rest.Request) { r.ResourceVersion(rv).ResourceVersionMatch("Exact") })
	if o, bad := badList(req, l); bad {
		return o
	}
	if got := l.list.Metadata.ResourceVersion; got != rv {
		return fail(req, fmt.Sprintf("asked for exactly %s, got a state at %s", rv, got), base.x, l.x)
	}
	want, got := versions(base.list.Items), versions(l.list.Items)
	if d := diffVersions(want, got); d != "" {
		return fail(req, fmt.Sprintf("the state at %s differs from the one a consistent list showed at %s: %s", rv, rv, d), base.x, l.x)
	}
	return pass("the state at %s, %d items, as the consistent list showed it", rv, len(got)).with(l.x)
}

// versions maps each item's key to its resourceVersion.
func versions(items []*api.Pod) map[string]string {
	m := make(map[string]string, len(items))
	for _, p := range items {
		m[key(p)] = p.Metadata.ResourceVersion
	}
	return m
}

// diffVersions names the first difference between two states, "" if none.
func diffVersions(want, got map[string]string) string {
	for k, v := range want {
		if g, ok := got[k]; !ok {
			return fmt.Sprintf("%s@%s is missing", k, v)
		} else if g != v {
			return fmt.Sprintf("%s is at %s, not %s", k, g, v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%s@%s was not there", k, v)
		}
	}
	return ""
}

// pagingLimit is the page size of the paging checks: one item a page, so
// that two items make two pages.
const pagingLimit = 1

// checkListPaging: limit and continue page one snapshot: each page at most
// limit items, every page under the first page's resourceVersion, no item
// twice, and the last page without a token.
func checkListPaging(ctx context.Context, e *env) Outcome {
	const req = "a list with limit=1 and its continue tokens page one snapshot: at most 1 item a page, every page at the first page's resourceVersion, no item twice, a continue token on every page but the last"
	made, note := e.ensurePods(ctx, 2)
	first := e.list(ctx, e.json, func(r *rest.Request) { r.Limit(pagingLimit) })
	if o, bad := badList(req, first); bad {
		return o
	}
	if first.list.Metadata.Continue == "" && len(first.list.Items) <= pagingLimit {
		if made == 0 {
			return notApplicable("%d pods: paging needs 2%s", len(first.list.Items), note).with(first.x)
		}
	}
	rv, seenKeys, pages := first.list.Metadata.ResourceVersion, map[string]bool{}, []*Exchange{first.x}
	page := first
	for {
		if n := len(page.list.Items); n > pagingLimit {
			return fail(req, fmt.Sprintf("page %d holds %d items, more than limit=%d", len(pages), n, pagingLimit), page.x)
		}
		for _, p := range page.list.Items {
			if seenKeys[key(p)] {
				return fail(req, fmt.Sprintf("page %d repeats %s", len(pages), key(p)), page.x)
			}
			seenKeys[key(p)] = true
		}
		if got := page.list.Metadata.ResourceVersion; got != rv {
			return fail(req, fmt.Sprintf("page %d is at resourceVersion %s, the first page at %s", len(pages), got, rv), first.x, page.x)
		}
		tok := page.list.Metadata.Continue
		if tok == "" {
			break
		}
		if len(page.list.Items) == 0 {
			return fail(req, fmt.Sprintf("page %d is empty but has a continue token", len(pages)), page.x)
		}
		if len(pages) > 10000 {
			return fail(req, "more than 10000 pages: the tokens never end", page.x)
		}
		page = e.list(ctx, e.json, func(r *rest.Request) { r.Limit(pagingLimit).Continue(tok) })
		pages = append(pages, page.x)
		if o, bad := badList(req, page); bad {
			return o
		}
	}
	o := pass("%d pages of at most %d item at resourceVersion %s, %d items%s", len(pages), pagingLimit, rv, len(seenKeys), note)
	return o.with(pages[:min(len(pages), 3)]...)
}

// ensurePods makes sure n pods are listed, creating throwaway ones with
// Options.Write; it returns how many it made, and a note on why it could not.
func (e *env) ensurePods(ctx context.Context, n int) (made int, note string) {
	l := e.list(ctx, e.json, nil)
	if l.err != nil {
		return 0, ""
	}
	have := len(l.list.Items)
	if have >= n {
		return 0, ""
	}
	if e.pods == nil {
		return 0, " (run with --write to create throwaway pods)"
	}
	for ; have < n; have++ {
		if _, _, err := e.pods.create(ctx); err != nil {
			return made, "; creating a throwaway pod failed: " + err.Error()
		}
		made++
	}
	return made, fmt.Sprintf(" (%d throwaway pods made)", made)
}

// checkListContinueExpired: a continue token whose snapshot the server's
// history has passed is answered 410, not with a page. The server's own
// word says when that is: an Exact list at the token's version answering
// 410. Changes (throwaway pods) move the history on while the check waits.
func checkListContinueExpired(ctx context.Context, e *env) Outcome {
	const req = "a continue token for a snapshot the server no longer has (an Exact list at its resourceVersion answers 410) is answered 410 Expired, never with a page"
	if e.pods == nil {
		return notApplicable("a read-only run cannot make a continue token expire: run with --write")
	}
	if _, note := e.ensurePods(ctx, 2); note != "" && note[0] == ';' {
		return notApplicable("the server did not take the throwaway pods that make two pages%s", note)
	}
	first := e.list(ctx, e.json, func(r *rest.Request) { r.Limit(pagingLimit) })
	if first.err != nil {
		return notApplicable("the first page failed: %v", first.err).with(first.x)
	}
	tok, rv := first.list.Metadata.Continue, first.list.Metadata.ResourceVersion
	if tok == "" {
		return notApplicable("the first page of limit=1 has no continue token (depends on list-paging)").with(first.x)
	}
	wait := e.opts.ExpiryWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-10*time.Second)
	}
	gone, changes, werr := e.waitForExpiry(ctx, rv, wait)
	if gone == nil {
		why := fmt.Sprintf("after %d changes in %s the server still serves resourceVersion %s exactly: its history has not passed the token's snapshot (an apiserver compacts every 5 minutes by default, --etcd-compaction-interval)", changes, wait.Round(time.Second), rv)
		if werr != nil {
			why += "; making changes failed: " + werr.Error()
		}
		return notApplicable("%s", why).with(first.x)
	}
	next := e.list(ctx, e.json, func(r *rest.Request) { r.Limit(pagingLimit).Continue(tok) })
	if next.err == nil {
		return fail(req, fmt.Sprintf("the server answered an Exact list at %s with 410, yet served the page of a continue token from %s with 200 (resourceVersion %s, %d items)",
			rv, rv, next.list.Metadata.ResourceVersion, len(next.list.Items)), first.x, gone, next.x)
	}
	if !rest.IsGone(next.err) {
		return fail(req, "the expired token's page failed, but not with 410: "+next.err.Error(), gone, next.x)
	}
	return pass("after %d changes, the token from %s was answered 410, as the Exact list at %s was", changes, rv, rv).with(gone, next.x)
}

// waitForExpiry makes changes and asks for an Exact list at rv until the
// server answers it 410 (returned), for at most wait.
func (e *env) waitForExpiry(ctx context.Context, rv string, wait time.Duration) (*Exchange, int, error) {
	ctx, cancel := context.WithTimeout(ctx, max(wait, 0))
	defer cancel()
	var last *api.Pod
	var werr error
	changes := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if _, err := e.pods.change(ctx, &last); err != nil {
			werr = err
		} else {
			changes++
		}
		l := e.list(ctx, e.json, func(r *rest.Request) { r.ResourceVersion(rv).ResourceVersionMatch("Exact") })
		if rest.IsGone(l.err) {
			return l.x, changes, werr
		}
		select {
		case <-ctx.Done():
			return nil, changes, werr
		case <-tick.C:
		}
	}
}
