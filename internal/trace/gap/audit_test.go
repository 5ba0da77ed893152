package gap

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest/meta"
)

func nsPod(name, rv string) podVersion {
	return podVersion{Namespace: "ns", Name: name, ResourceVersion: rv}
}

// fakeLedger is a Ledger over a fixed list of changes.
type fakeLedger []LedgerEntry

func (l fakeLedger) Between(from, to string) []LedgerEntry {
	var out []LedgerEntry
	for _, e := range l {
		if trace.NewerRV(e.ResourceVersion, from) && !trace.NewerRV(e.ResourceVersion, to) {
			out = append(out, e)
		}
	}
	return out
}

func (fakeLedger) Source() string { return "recording" }

func ledgerEntry(typ, name, rv string) LedgerEntry {
	return LedgerEntry{Type: typ, Namespace: "ns", Name: name, ResourceVersion: rv}
}

// TestMissedBetween checks the comparison of what the client held with the
// state it relists: what is gone, what moved on, what only a ledger knows,
// and that nothing is told of what the client saw or could not have missed.
func TestMissedBetween(t *testing.T) {
	for _, tc := range []struct {
		name       string
		held, now  []podVersion
		ledger     fakeLedger
		want       []trace.Missed // compared without Explain
		wantInText []string       // in every Explain, in order
	}{
		{name: "the same state misses nothing",
			held: []podVersion{nsPod("a", "5"), nsPod("b", "7")}, now: []podVersion{nsPod("b", "7"), nsPod("a", "5")}},
		{name: "a pod added while away is seen now, not missed",
			held: []podVersion{nsPod("a", "5")}, now: []podVersion{nsPod("a", "5"), nsPod("new", "12")}},
		{name: "gone and moved on",
			held: []podVersion{nsPod("c", "8"), nsPod("a", "5"), nsPod("b", "7")},
			now:  []podVersion{nsPod("b", "11")},
			want: []trace.Missed{
				{How: trace.MissedDeleted, Namespace: "ns", Name: "a", From: "5", State: "20"},
				{How: trace.MissedSkipped, Namespace: "ns", Name: "b", From: "7", To: "11", State: "20"},
				{How: trace.MissedDeleted, Namespace: "ns", Name: "c", From: "8", State: "20"},
			}},
		{name: "an older version in the new state is no skip",
			held: []podVersion{nsPod("a", "9")}, now: []podVersion{nsPod("a", "8")}},
		{name: "deleted and created again under its name",
			held:       []podVersion{{Namespace: "ns", Name: "a", UID: "u1", ResourceVersion: "5"}},
			now:        []podVersion{{Namespace: "ns", Name: "a", UID: "u2", ResourceVersion: "15"}},
			want:       []trace.Missed{{How: trace.MissedDeleted, Namespace: "ns", Name: "a", From: "5", State: "20"}},
			wantInText: []string{"uid u1", "uid u2"}},
		{name: "versions that are not integers still differ",
			held: []podVersion{nsPod("a", "x1")}, now: []podVersion{nsPod("a", "x2")},
			want: []trace.Missed{{How: trace.MissedSkipped, Namespace: "ns", Name: "a", From: "x1", To: "x2", State: "20"}}},
		{name: "the ledger adds what came and went",
			held: []podVersion{nsPod("a", "5"), nsPod("b", "7")},
			now:  []podVersion{nsPod("a", "13"), nsPod("kept", "12")},
			ledger: fakeLedger{
				ledgerEntry("ADDED", "early", "9"), // before the client's version: not this gap's
				ledgerEntry("ADDED", "brief", "11"), ledgerEntry("ADDED", "kept", "12"),
				ledgerEntry("MODIFIED", "a", "13"), ledgerEntry("MODIFIED", "brief", "14"),
				ledgerEntry("DELETED", "b", "15"), ledgerEntry("DELETED", "brief", "16"),
				ledgerEntry("ADDED", "later", "25"), // after the new state
			},
			want: []trace.Missed{
				{How: trace.MissedSkipped, Namespace: "ns", Name: "a", From: "5", To: "13", State: "20"},
				{How: trace.MissedDeleted, Namespace: "ns", Name: "b", From: "7", State: "20"},
				{How: trace.MissedUnseen, Namespace: "ns", Name: "brief", From: "11", To: "16", State: "20"},
			},
			wantInText: []string{"1 change", "DELETED at rv 15", "added at rv 11 and deleted at rv 16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gapAudit{from: "10", to: "20"}
			if tc.ledger != nil {
				a.changes, a.source = tc.ledger.Between(a.from, a.to), tc.ledger.Source()
			}
			got := missedBetween(tc.held, tc.now, a)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(trace.Missed{}, "Explain"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("missed (-want +got):\n%s", diff)
			}
			var texts []string
			for _, m := range got {
				if m.Explain == "" {
					t.Errorf("%s %s: no explanation", m.How, m.Name)
				}
				texts = append(texts, m.Explain)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tc.wantInText {
				i := strings.Index(all, w)
				if i < 0 {
					t.Fatalf("the explanations do not say %q (in this order):\n%s", w, strings.Join(texts, "\n"))
				}
				all = all[i+len(w):]
			}
		})
	}
}

func gapPod(name, uid, rv string) *tracetest.Pod {
	return &tracetest.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, UID: uid, ResourceVersion: rv}}
}

// TestAuditOfReplaces drives a traced store as a reflector would: the
// first replace is no gap, events the client applies are not missed, and a
// later replace is audited against what the store held, its steps told
// after the replace decision and before the push, and counted in the
// summary, in JSON as in text.
func TestAuditOfReplaces(t *testing.T) {
	var js, txt bytes.Buffer
	audit := New(fakeLedger{ledgerEntry("ADDED", "brief", "31"), ledgerEntry("DELETED", "brief", "32")})
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js), text.New(&txt, text.Options{})}, Clock: func() time.Time { return time.Time{} },
		Analyses: []trace.Analysis{audit}})
	in := trace.NewInstrument[*tracetest.Pod](tr)
	store := in.WrapStore(cache.NewUndeltaStore(in.Pushed, cache.MetaNamespaceKey[*tracetest.Pod]))
	observeRV := func(rv string) { in.Observe(cache.Step{Kind: cache.StepResourceVersion, ResourceVersion: rv}) }

	mustApply(t, store.Replace([]*tracetest.Pod{gapPod("a", "ua", "10"), gapPod("b", "ub", "11"), gapPod("c", "uc", "12")}, "20"))
	observeRV("20")
	mustApply(t, store.Delete(gapPod("c", "uc", "25"))) // seen: not missed
	observeRV("25")
	mustApply(t, store.Update(gapPod("b", "ub", "26"))) // seen: its version is 26 now
	observeRV("26")
	// Away from 26 to 40: a deleted, b changed again, brief came and went.
	mustApply(t, store.Replace([]*tracetest.Pod{gapPod("b", "ub", "33")}, "40"))
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	var kinds []string
	var missed []trace.Missed
	var stop trace.Stop
	for _, line := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var s struct {
			Kind     trace.Kind
			Decision *trace.Decision
			Missed   *trace.Missed
			Stop     *trace.Stop
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		k := string(s.Kind)
		switch {
		case s.Decision != nil:
			k += " " + s.Decision.Step
		case s.Missed != nil:
			k += " " + s.Missed.How
			missed = append(missed, *s.Missed)
		case s.Stop != nil:
			stop = *s.Stop
		}
		kinds = append(kinds, k)
	}
	wantKinds := []string{"decision replace", "push", "decision resource-version",
		"push", "decision resource-version", "push", "decision resource-version",
		"decision replace", "missed deleted", "missed skipped", "missed unseen", "push", "stop"}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	wantMissed := []trace.Missed{
		{How: trace.MissedDeleted, Namespace: "ns", Name: "a", From: "10", State: "40"},
		{How: trace.MissedSkipped, Namespace: "ns", Name: "b", From: "26", To: "33", State: "40"},
		{How: trace.MissedUnseen, Namespace: "ns", Name: "brief", From: "31", To: "32", State: "40"},
	}
	if diff := cmp.Diff(wantMissed, missed, cmpopts.IgnoreFields(trace.Missed{}, "Explain")); diff != "" {
		t.Fatalf("missed (-want +got):\n%s", diff)
	}
	if stop.Missed != 3 || !cmp.Equal(stop.MissedHow, map[string]int{"deleted": 1, "skipped": 1, "unseen": 1}) {
		t.Fatalf("stop counts %d missed by how %v, want 3: one each", stop.Missed, stop.MissedHow)
	}
	lines := strings.Split(strings.TrimSpace(txt.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "; missed 3 (1 deleted, 1 skipped, 1 unseen)") {
		t.Fatalf("text summary %q: want the missed totals at its end", last)
	}
	for _, name := range []string{"ns/a rv 10..40", "ns/b rv 26..33", "ns/brief rv 31..32"} {
		if !strings.Contains(txt.String(), "missed ") || !strings.Contains(txt.String(), name) {
			t.Errorf("the text trace has no missed line for %s:\n%s", name, txt.String())
		}
	}
}

// TestAuditWhileTracing runs replaces and events on one goroutine while
// another closes the tracer, as a run ending mid-relist does: with -race
// this checks the audit's state is shared safely, and that steps after
// Close are dropped rather than told.
func TestAuditWhileTracing(t *testing.T) {
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&bytes.Buffer{})}, Analyses: []trace.Analysis{New(fakeLedger{})}})
	in := trace.NewInstrument[*tracetest.Pod](tr)
	store := in.WrapStore(cache.NewStore(cache.MetaNamespaceKey[*tracetest.Pod]))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			rv := 100 + 2*i
			_ = store.Add(gapPod("p", "u", strconv.Itoa(rv)))
			in.Observe(cache.Step{Kind: cache.StepResourceVersion, ResourceVersion: strconv.Itoa(rv)})
			_ = store.Replace(nil, strconv.Itoa(rv+1))
		}
	}()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

func mustApply(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
