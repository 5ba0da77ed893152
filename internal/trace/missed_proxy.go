package trace

import (
	"strings"

	"github.com/podwatch/podwatch/cache"
)

// The gap audit of a proxy's clients. A proxy holds no client's store, but
// every body a client reads passes through it: the versions its scope keeps
// (diff_versions.go) are what the client has been sent, so what its store
// holds. When the client relists (clients.go), what it held is set aside;
// once the new state has all come (a list's last page, a watch list's
// initial-events-end bookmark) the two are compared as podwatch's own audit
// compares its store's content with the state that replaces it (gapOf), and
// the changes missed are told with the client's name.

// pendingGap is a relist's audit waiting for its state to come whole.
type pendingGap struct {
	held map[string]version // what the client had been sent before the relist
	from string             // the newest resourceVersion it had been sent
}

// relist sets s's objects aside for the audit of the relist starting, and
// empties them for the state it brings. A relist begun again before that
// state came whole (a watch list cut short, a paged list restarted) keeps
// what was set aside first: the pages or events since are not what the
// client's store held.
func (v *versions) relist(s string) {
	sv := v.scope(s, false)
	if sv.gap != nil {
		return
	}
	sv.gap = &pendingGap{held: sv.objects, from: sv.rv}
	sv.objects = map[string]version{}
}

// auditScopeLocked tells what the state of s at rv to, just come whole,
// shows client missed, when a relist's audit waits for it.
func (t *Tracer) auditScopeLocked(client, s, to string) {
	sv := t.diffs.scopes[s]
	if sv == nil || sv.gap == nil {
		return
	}
	g := sv.gap
	sv.gap = nil
	missed := gapOf(t.ledger, versionsIn(g.held), versionsIn(sv.objects), g.from, to)
	for i := range missed {
		t.tellMissedLocked(client, &missed[i])
	}
}

// gapEventLocked audits a watch list relist once its initial events are
// over: e is the bookmark that says so.
func (t *Tracer) gapEventLocked(r *reqState, e *Event) {
	if r.diff != nil && r.typ == "watch-list" && e.Type == "BOOKMARK" && e.Annotations[cache.InitialEventsEndAnnotation] == "true" {
		t.auditScopeLocked(r.client, r.diff.scope, e.ResourceVersion)
	}
}

// versionsIn are a scope's versions as the audit compares them.
func versionsIn(objs map[string]version) []podVersion {
	out := make([]podVersion, 0, len(objs))
	for k, v := range objs {
		ns, name, _ := strings.Cut(k, "/")
		out = append(out, podVersion{Namespace: ns, Name: name, RV: v.rv})
	}
	return out
}

// withClient puts, under a step's text line, the proxied client it is
// about, as a request's line has it.
func withClient(client string) func(tag, col, text string, more []string) (string, string, string, []string) {
	return func(tag, col, text string, more []string) (string, string, string, []string) {
		if client != "" {
			// The client's name says "from" its host already.
			more = append([]string{"client: " + client}, more...)
		}
		return tag, col, text, more
	}
}
