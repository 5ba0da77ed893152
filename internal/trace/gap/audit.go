package gap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
)

// Audit is the gap audit, an analysis: it reads the relists a Record
// carries (podwatch's own replace decision) and those package versions
// hands it (Relisted), and tells each change missed after the step that
// shows it.
type Audit struct{ ledger Ledger }

// New returns an Audit that asks ledger, when not nil, for the changes
// between the versions of a relist; give it to the Tracer in
// trace.Options.Analyses, and its Relisted to versions.Options.
func New(ledger Ledger) *Audit { return &Audit{ledger: ledger} }

// Recorded audits the relist of podwatch's own store, on its replace
// decision.
func (a *Audit) Recorded(rec *trace.Record) {
	if rec.Relist != nil {
		a.Relisted(rec, *rec.Relist)
	}
}

// Relisted tells, after rec's step, each change r shows its client missed.
func (a *Audit) Relisted(rec *trace.Record, r trace.Relist) {
	for _, m := range gapOf(a.ledger, r.Held, r.State, r.From, r.To) {
		rec.After(trace.Step{Kind: trace.KindMissed, Client: r.Client, Missed: &m})
	}
}

// podVersion is one pod as a state holds it.
type podVersion = trace.ObjectVersion

func key(p podVersion) string {
	if p.Namespace == "" {
		return p.Name
	}
	return p.Namespace + "/" + p.Name
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
func missedBetween(held, now []podVersion, a gapAudit) []trace.Missed {
	nowByKey := make(map[string]podVersion, len(now))
	for _, p := range now {
		nowByKey[key(p)] = p
	}
	byKey := changesByKey(a.changes)
	var out []trace.Missed
	heldKeys := make(map[string]bool, len(held))
	for _, h := range slices.SortedFunc(slices.Values(held), byPodKey) {
		heldKeys[key(h)] = true
		n, ok := nowByKey[key(h)]
		switch {
		case !ok, h.UID != "" && n.UID != "" && h.UID != n.UID:
			out = append(out, deletedMissed(h, n, ok, a, byKey[key(h)]))
		case trace.NewerRV(n.ResourceVersion, h.ResourceVersion):
			out = append(out, skippedMissed(h, n, a, byKey[key(h)]))
		}
	}
	return append(out, unseenMissed(a, byKey, heldKeys, nowByKey)...)
}

func byPodKey(a, b podVersion) int { return strings.Compare(key(a), key(b)) }

func deletedMissed(h, n podVersion, recreated bool, a gapAudit, known []LedgerEntry) trace.Missed {
	state := a.to
	m := trace.Missed{How: trace.MissedDeleted, Namespace: h.Namespace, Name: h.Name, From: h.ResourceVersion, State: state}
	m.Explain = fmt.Sprintf("the client held it at rv %s; the state at rv %s no longer has it, and its DELETED event never came", h.ResourceVersion, state)
	if recreated {
		m.Explain = fmt.Sprintf("the client held it at rv %s (uid %s); the state at rv %s has another pod of that name (uid %s): the one it held was deleted, and neither its DELETED nor the new one's ADDED came", h.ResourceVersion, h.UID, state, n.UID)
	}
	if d, ok := lastOfType(known, "DELETED"); ok {
		m.Explain += "; the " + a.source + " has its DELETED at rv " + d.ResourceVersion
	}
	return m
}

func skippedMissed(h, n podVersion, a gapAudit, known []LedgerEntry) trace.Missed {
	state := a.to
	m := trace.Missed{How: trace.MissedSkipped, Namespace: h.Namespace, Name: h.Name, From: h.ResourceVersion, To: n.ResourceVersion, State: state}
	m.Explain = fmt.Sprintf("the client last saw it at rv %s; the state at rv %s has it at rv %s: every change in between was never seen as an event", h.ResourceVersion, state, n.ResourceVersion)
	if len(known) > 0 {
		m.Explain += fmt.Sprintf(" (the %s has %d %s of it)", a.source, len(known), plural(len(known)))
	}
	return m
}

// unseenMissed are the pods the ledger knows to have come and gone between
// the client's version and the new state's: neither held nor in the new state.
func unseenMissed(a gapAudit, byKey map[string][]LedgerEntry, held map[string]bool, now map[string]podVersion) []trace.Missed {
	var out []trace.Missed
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
		out = append(out, trace.Missed{How: trace.MissedUnseen, Namespace: c.Namespace, Name: c.Name, From: first.ResourceVersion,
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

// gapOf is the gap audit of one replace, podwatch's own or a proxied
// client's: held is what the client had before it, now the state at rv to,
// from the resourceVersion the client had reached ("": the newest it held).
// A first sync (no version reached, nothing held) has nothing to audit.
func gapOf(ledger Ledger, held, now []podVersion, from, to string) []trace.Missed {
	if from == "" {
		from = newestRV(held)
	}
	if from == "" {
		return nil
	}
	a := gapAudit{from: from, to: to}
	if ledger != nil && to != "" && trace.NewerRV(to, from) {
		a.changes, a.source = ledger.Between(from, to), ledger.Source()
	}
	return missedBetween(held, now, a)
}

func newestRV(ps []podVersion) string {
	rv := ""
	for _, p := range ps {
		if rv == "" || trace.NewerRV(p.ResourceVersion, rv) {
			rv = p.ResourceVersion
		}
	}
	return rv
}

func plural(n int) string {
	if n == 1 {
		return "change"
	}
	return "changes"
}
