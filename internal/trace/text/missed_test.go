package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

// TestMissedText checks the text trace's line for each way of missing a
// change: the word missed, how, the pod and the resourceVersion range; and
// the totals on the summary line.
func TestMissedText(t *testing.T) {
	for _, tc := range []struct {
		m    trace.Missed
		want string
	}{
		{trace.Missed{How: trace.MissedDeleted, Namespace: "ns", Name: "a", From: "5", State: "20", Explain: "gone"},
			"missed        deleted ns/a rv 5..20: gone"},
		{trace.Missed{How: trace.MissedSkipped, Namespace: "ns", Name: "b", From: "7", To: "11", State: "20", Explain: "moved"},
			"missed        skipped ns/b rv 7..11: moved"},
		{trace.Missed{How: trace.MissedUnseen, Namespace: "ns", Name: "c", From: "12", To: "16", State: "20", Explain: "brief"},
			"missed        unseen ns/c rv 12..16: brief"},
	} {
		var b bytes.Buffer
		if err := New(&b, Options{}).Step(trace.Step{Kind: trace.KindMissed, Missed: &tc.m}); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); !strings.HasSuffix(got, tc.want) {
			t.Errorf("got %q, want it to end %q", got, tc.want)
		}
	}
	st := &trace.Stop{Missed: 3, MissedHow: map[string]int{trace.MissedDeleted: 2, trace.MissedUnseen: 1}}
	if got, want := missedTotals(st), "; missed 3 (2 deleted, 1 unseen)"; got != want {
		t.Errorf("totals: got %q, want %q", got, want)
	}
	if got := missedTotals(&trace.Stop{}); got != "" {
		t.Errorf("totals of a run that missed nothing: got %q, want none", got)
	}
}
