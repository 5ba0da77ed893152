package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/trace"
)

// gapFault is the injected fault docs/PROTOCOL.md §14 shows: lifecycle's
// first watch answered 410, so the client relists long after the one state
// it had, and misses what the recording did in between.
const gapFault = "gone:on=watch,nth=1"

// TestGapAuditGolden replays lifecycle with gapFault and compares the text
// trace's relist, from its replace to its push, with the golden file that
// docs/PROTOCOL.md quotes (<!-- trace: lifecycle-gone -->).
func TestGapAuditGolden(t *testing.T) {
	got, _ := replayTrace(t, "lifecycle", "--fault", gapFault)
	lines := strings.SplitAfter(got, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "  missed  ") })
	if start < 1 {
		t.Fatalf("no missed line after the replace; trace:\n%s", got)
	}
	start-- // the replace the audit follows
	for start > 0 && !strings.Contains(lines[start], "  reflector     replace ") {
		start--
	}
	end := start + slices.IndexFunc(lines[start:], func(l string) bool { return strings.Contains(l, "  push  ") })
	if end < start {
		t.Fatalf("no push after the relist's replace; trace:\n%s", got)
	}
	checkGolden(t, "trace-lifecycle-gone.text.golden", strings.Join(lines[start:end+1], ""))
	summary := traceTail(got)
	if !strings.Contains(summary, "; missed ") {
		t.Fatalf("the summary %q does not count what was missed", summary)
	}
}

// gapStep is what the gap tests read of a JSON trace line.
type gapStep struct {
	Kind  string `json:"kind"`
	Event *struct {
		Type      string `json:"type"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"event"`
	Decision *trace.Decision `json:"decision"`
	Push     *trace.Push     `json:"push"`
	Missed   *trace.Missed   `json:"missed"`
	Stop     *trace.Stop     `json:"stop"`
}

// TestGapAuditFaults replays the bundled fixtures with faults that make the
// client relist after missing changes (and, as controls, a replay whose
// recorded relist misses nothing, and a cut after which the resumed watch
// brings everything). In every JSON trace the audit must agree with what
// the relist's push changes: each pod deleted is one the push removes at
// the version the client had, each pod skipped one it updates from that
// version to the new; each pod unseen is never in an event or a push, and
// the recording has its ADDED and DELETED at the versions told. The summary
// counts them all.
func TestGapAuditFaults(t *testing.T) {
	for _, tc := range []struct {
		fixture, fault string
		missed         bool
	}{
		{"lifecycle", "", false}, // the recorded 410: nothing changed meanwhile
		{"lifecycle", "cut:events=1,on=watch,nth=3", false},
		{"lifecycle", gapFault, true},
		{"lifecycle", "gone-event:events=1,on=watch,nth=1", true},
		{"lifecycle", "cut:events=1,on=watch,nth=2", true},
		{"watch-list", "gone:on=watch,nth=2", true},
		{"watch-list", "cut:events=2,on=watch,nth=1", true},
	} {
		t.Run(tc.fixture+"/"+tc.fault, func(t *testing.T) {
			t.Parallel()
			args := []string{"--trace-format", "json"}
			if tc.fault != "" {
				args = append(args, "--fault", tc.fault)
			}
			got, _ := replayTrace(t, tc.fixture, args...)
			steps := parseGapSteps(t, got)
			missed := checkAuditAgrees(t, steps)
			if tc.missed != (missed > 0) {
				t.Fatalf("%d missed steps; want some: %t", missed, tc.missed)
			}
			checkUnseenRecorded(t, tc.fixture, steps)
		})
	}
}

func parseGapSteps(t *testing.T, trace string) []gapStep { return parseTraceLines[gapStep](t, trace) }

// checkAuditAgrees checks each run of missed steps against the push that
// follows it, the unseen against every event and push, and the summary's
// counts; it returns how many missed steps there were.
func checkAuditAgrees(t *testing.T, steps []gapStep) int {
	t.Helper()
	told := map[string]bool{} // every pod an event or a push named
	for _, s := range steps {
		if s.Event != nil && s.Event.Name != "" {
			told[s.Event.Namespace+"/"+s.Event.Name] = true
		}
		if p := s.Push; p != nil {
			for _, e := range slices.Concat(p.Added, p.Updated, p.Removed) {
				k, _, _ := strings.Cut(e, "@")
				told[k] = true
			}
		}
	}
	byHow := map[string]int{}
	total := 0
	var removed, updated []string // what the audit says the next push shows
	for i, s := range steps {
		switch {
		case s.Missed != nil:
			m := s.Missed
			total++
			byHow[m.How]++
			k := m.Namespace + "/" + m.Name
			switch m.How {
			case trace.MissedDeleted:
				removed = append(removed, k+"@"+m.From)
			case trace.MissedSkipped:
				updated = append(updated, k+"@"+m.From+"->"+m.To)
			case trace.MissedUnseen:
				if told[k] {
					t.Errorf("step %d: %s is unseen, yet an event or a push names it", i+1, k)
				}
			default:
				t.Errorf("step %d: missed how %q", i+1, m.How)
			}
		case s.Push != nil && (removed != nil || updated != nil):
			slices.Sort(removed)
			slices.Sort(updated)
			if !slices.Equal(removed, s.Push.Removed) || !slices.Equal(updated, s.Push.Updated) {
				t.Errorf("step %d: the audit says removed %v, updated %v; the push removes %v, updates %v",
					i+1, removed, updated, s.Push.Removed, s.Push.Updated)
			}
			removed, updated = nil, nil
		case s.Push != nil:
			checkNothingMissedIn(t, i, steps)
		}
	}
	stop := steps[len(steps)-1].Stop
	if stop == nil {
		t.Fatalf("the trace does not end with its summary")
	}
	if stop.Missed != total || total > 0 && !maps.Equal(stop.MissedHow, byHow) {
		t.Errorf("summary: %d missed %v; the trace tells %d %v", stop.Missed, stop.MissedHow, total, byHow)
	}
	return total
}

// checkNothingMissedIn wants the push right after a replace that the audit
// told nothing of to remove or update nothing, unless it is the first state.
func checkNothingMissedIn(t *testing.T, i int, steps []gapStep) {
	t.Helper()
	if i == 0 {
		return
	}
	prev := steps[i-1].Decision
	if prev == nil || prev.Step != "replace" || !pushedBefore(steps[:i-1]) {
		return
	}
	if p := steps[i].Push; len(p.Removed) > 0 || len(p.Updated) > 0 {
		t.Errorf("step %d: the relist's push removes %v, updates %v, and the audit told nothing", i+1, p.Removed, p.Updated)
	}
}

func pushedBefore(steps []gapStep) bool {
	return slices.ContainsFunc(steps, func(s gapStep) bool { return s.Push != nil })
}

// checkUnseenRecorded wants, for each unseen pod, the recording to hold its
// ADDED at From and its DELETED at To: found in the recorded bodies, not by
// the replay's own reading of them.
func checkUnseenRecorded(t *testing.T, name string, steps []gapStep) {
	t.Helper()
	rec, err := fixture.Load(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, ex := range rec.Exchanges {
		var body strings.Builder
		for _, c := range ex.Response.Chunks {
			body.Write(c.Data)
		}
		events = append(events, strings.Split(body.String(), "\n")...)
	}
	has := func(typ, ns, pod, rv string) bool {
		return slices.ContainsFunc(events, func(l string) bool {
			return strings.HasPrefix(l, fmt.Sprintf(`{"type":%q`, typ)) && strings.Contains(l, fmt.Sprintf(`"name":%q,"namespace":%q`, pod, ns)) &&
				strings.Contains(l, fmt.Sprintf(`"resourceVersion":%q`, rv))
		})
	}
	for _, s := range steps {
		if m := s.Missed; m != nil && m.How == trace.MissedUnseen {
			if !has("ADDED", m.Namespace, m.Name, m.From) || !has("DELETED", m.Namespace, m.Name, m.To) {
				t.Errorf("unseen %s/%s rv %s..%s: the recording has no ADDED at %s and DELETED at %s", m.Namespace, m.Name, m.From, m.To, m.From, m.To)
			}
		}
	}
}
