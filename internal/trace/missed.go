package trace

import (
	"fmt"
	"slices"
	"strings"

	"github.com/podwatch/podwatch/rest/meta"
)

// The gap audit. A client that relists (after a 410, a refused change, or a
// watch list after a break) replaces its whole store in one step, and the
// pushes only show the difference. What that difference means is told here,
// at the replace: each pod the client held that the new state no longer has
// was deleted without the client seeing its DELETED, and each pod whose
// resourceVersion moved on had changes the client never saw. A Ledger (a
// recording being replayed, a model) adds the pods that came and went
// entirely while the client was away.
//
// A watch resumed from the last resourceVersion applied needs no audit: the
// server sends every change after it, or answers 410, and a relist follows.

// The ways a change can be missed (Missed.How).
const (
	MissedDeleted = "deleted"
	MissedSkipped = "skipped"
	MissedUnseen  = "unseen"
)

// podVersion is one pod as a state holds it.
type podVersion struct {
	Namespace, Name, UID, RV string
}

func (p podVersion) key() string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
}

func versionsOf[T meta.Object](items []T) []podVersion {
	out := make([]podVersion, 0, len(items))
	for _, o := range items {
		m := o.Meta()
		out = append(out, podVersion{Namespace: m.Namespace, Name: m.Name, UID: m.UID, RV: m.ResourceVersion})
	}
	return out
}

// gapAudit is what the audit needs beyond the two states: the
// resourceVersion the client had reached before the gap, the one of the new
// state, and what a Ledger knows of the changes between.
type gapAudit struct {
	from, to string
	changes  []LedgerEntry // in (from, to], oldest first; nil without a ledger
	source   string        // the ledger's Source, for explanations
}

// missedBetween compares held, what the client's store held before the
// replace, with now, the state it is replaced with, and returns each change
// the client missed: held pods gone (deleted, by key), held pods moved on
// (skipped, by key), then pods only the ledger knows (unseen, oldest first).
func missedBetween(held, now []podVersion, a gapAudit) []Missed {
	nowByKey := make(map[string]podVersion, len(now))
	for _, p := range now {
		nowByKey[p.key()] = p
	}
	byKey := changesByKey(a.changes)
	var out []Missed
	heldKeys := make(map[string]bool, len(held))
	for _, h := range slices.SortedFunc(slices.Values(held), byPodKey) {
		heldKeys[h.key()] = true
		n, ok := nowByKey[h.key()]
		switch {
		case !ok, h.UID != "" && n.UID != "" && h.UID != n.UID:
			out = append(out, deletedMissed(h, n, ok, a, byKey[h.key()]))
		case newerRV(n.RV, h.RV):
			out = append(out, skippedMissed(h, n, a, byKey[h.key()]))
		}
	}
	return append(out, unseenMissed(a, byKey, heldKeys, nowByKey)...)
}

func byPodKey(a, b podVersion) int { return strings.Compare(a.key(), b.key()) }

// newerRV says whether a is a later resourceVersion than b. Versions that
// do not read as the integers the API documents them to be cannot be
// ordered: any difference then counts as newer, since the client did not see
// that version either.
func newerRV(a, b string) bool {
	c, err := meta.CompareResourceVersions(a, b)
	if err != nil {
		return a != b
	}
	return c > 0
}

func deletedMissed(h, n podVersion, recreated bool, a gapAudit, known []LedgerEntry) Missed {
	state := a.to
	m := Missed{How: MissedDeleted, Namespace: h.Namespace, Name: h.Name, From: h.RV, State: state}
	m.Explain = fmt.Sprintf("the client held it at rv %s; the state at rv %s no longer has it, and its DELETED event never came", h.RV, state)
	if recreated {
		m.Explain = fmt.Sprintf("the client held it at rv %s (uid %s); the state at rv %s has another pod of that name (uid %s): the one it held was deleted, and neither its DELETED nor the new one's ADDED came", h.RV, h.UID, state, n.UID)
	}
	if d, ok := lastOfType(known, "DELETED"); ok {
		m.Explain += "; the " + a.source + " has its DELETED at rv " + d.ResourceVersion
	}
	return m
}

func skippedMissed(h, n podVersion, a gapAudit, known []LedgerEntry) Missed {
	state := a.to
	m := Missed{How: MissedSkipped, Namespace: h.Namespace, Name: h.Name, From: h.RV, To: n.RV, State: state}
	m.Explain = fmt.Sprintf("the client last saw it at rv %s; the state at rv %s has it at rv %s: every change in between was never seen as an event", h.RV, state, n.RV)
	if len(known) > 0 {
		m.Explain += fmt.Sprintf(" (the %s has %d %s of it)", a.source, len(known), plural(len(known), "change", "changes"))
	}
	return m
}

// unseenMissed are the pods the ledger knows to have come and gone between
// the client's version and the new state's: neither held nor in the new state.
func unseenMissed(a gapAudit, byKey map[string][]LedgerEntry, held map[string]bool, now map[string]podVersion) []Missed {
	var out []Missed
	for _, c := range a.changes {
		k := c.key()
		es, pending := byKey[k]
		if !pending || held[k] {
			continue
		}
		delete(byKey, k) // told once, at its first change
		if _, ok := now[k]; ok {
			continue
		}
		first, last := es[0], es[len(es)-1]
		out = append(out, Missed{How: MissedUnseen, Namespace: c.Namespace, Name: c.Name, From: first.ResourceVersion,
			To: last.ResourceVersion, State: a.to,
			Explain: fmt.Sprintf("the %s has it %s at rv %s and %s at rv %s, both after rv %s, where the client was, and before the state at rv %s: the client never knew it existed",
				a.source, ledgerVerb(first.Type), first.ResourceVersion, ledgerVerb(last.Type), last.ResourceVersion, a.from, a.to)})
	}
	return out
}

func ledgerVerb(typ string) string {
	switch typ {
	case "ADDED":
		return "added"
	case "DELETED":
		return "deleted"
	}
	return "changed"
}

func changesByKey(cs []LedgerEntry) map[string][]LedgerEntry {
	out := map[string][]LedgerEntry{}
	for _, c := range cs {
		out[c.key()] = append(out[c.key()], c)
	}
	return out
}

func lastOfType(cs []LedgerEntry, typ string) (LedgerEntry, bool) {
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Type == typ {
			return cs[i], true
		}
	}
	return LedgerEntry{}, false
}

// auditReplace tells, just before a store takes items (the state listed at
// rv), what they show the client missed against list, the store's content
// before the replace. A nil t does nothing.
func auditReplace[T meta.Object](t *Tracer, list func() []T, items []T, rv string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	from, ledger := t.rv, t.ledger
	t.mu.Unlock()
	missed := gapOf(ledger, versionsOf(list()), versionsOf(items), from, rv)
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range missed {
		t.tellMissedLocked("", &missed[i])
	}
}

// gapOf is the gap audit of one replace, podwatch's own or a proxied
// client's: held is what the client had before it, now the state at rv to,
// from the resourceVersion the client had reached ("": the newest it held).
// A first sync (no version reached, nothing held) has nothing to audit.
func gapOf(ledger Ledger, held, now []podVersion, from, to string) []Missed {
	if from == "" {
		from = newestRV(held)
	}
	if from == "" {
		return nil
	}
	a := gapAudit{from: from, to: to}
	if ledger != nil && to != "" && newerRV(to, from) {
		a.changes, a.source = ledger.Between(from, to), ledger.Source()
	}
	return missedBetween(held, now, a)
}

func newestRV(ps []podVersion) string {
	rv := ""
	for _, p := range ps {
		if rv == "" || newerRV(p.RV, rv) {
			rv = p.RV
		}
	}
	return rv
}

// tellMissedLocked tells m, a change client missed ("": podwatch's own).
func (t *Tracer) tellMissedLocked(client string, m *Missed) {
	if t.closed {
		return
	}
	if t.counts.MissedHow == nil {
		t.counts.MissedHow = map[string]int{}
	}
	t.counts.MissedHow[m.How]++
	t.emitLocked(Step{Kind: KindMissed, Client: client, Missed: m})
}

// missedText is the text trace's line for a missed change: the tag says
// missed, the line how, which pod and the resourceVersions between which it
// happened.
func missedText(m *Missed) (string, string, string, []string) {
	to := m.To
	if to == "" {
		to = m.State
	}
	pod := podVersion{Namespace: m.Namespace, Name: m.Name}.key()
	text := fmt.Sprintf("%s %s rv %s..%s: %s", m.How, pod, m.From, to, m.Explain)
	return "missed", bold + red, text, nil
}

// missedTotals is the summary line's count of missed changes, by how.
func missedTotals(p *Stop) string {
	if p.Missed == 0 {
		return ""
	}
	var parts []string
	for _, how := range []string{MissedDeleted, MissedSkipped, MissedUnseen} {
		if n := p.MissedHow[how]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, how))
		}
	}
	s := fmt.Sprintf("; missed %d", p.Missed)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
