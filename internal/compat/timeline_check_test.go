package compat

import (
	"errors"
	"testing"
)

// TestTimelineCheck proves the judge itself: it accepts pushes that walk the
// timeline forward (skipping states is fine), and names a push that goes back
// or that the server never had.
func TestTimelineCheck(t *testing.T) {
	tl := timeline{
		{rv: 10, pods: podSet{"a/x": 9}},
		{rv: 11, pods: podSet{"a/x": 9, "a/y": 11}},
		{rv: 12, pods: podSet{"a/y": 11}},
	}
	tests := []struct {
		name   string
		pushes []podSet
		rule   string // "" when the pushes are fine
	}{
		{"every state", []podSet{{"a/x": 9}, {"a/x": 9, "a/y": 11}, {"a/y": 11}}, ""},
		{"skips and repeats", []podSet{{"a/x": 9}, {"a/y": 11}, {"a/y": 11}}, ""},
		{"back in time", []podSet{{"a/y": 11}, {"a/x": 9}}, ruleOrder},
		{"never had", []podSet{{"a/x": 9}, {"a/x": 10}}, ruleState},
		{"mixes two states", []podSet{{"a/x": 9, "a/z": 12}}, ruleState},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tl.check(tc.pushes)
			var pe *pushError
			switch {
			case tc.rule == "" && err != nil:
				t.Fatalf("check: got %v, want no error", err)
			case tc.rule != "" && !errors.As(err, &pe):
				t.Fatalf("check: got %v, want a *pushError", err)
			case tc.rule != "" && pe.Rule != tc.rule:
				t.Fatalf("check: got rule %q (%v), want %q", pe.Rule, err, tc.rule)
			}
		})
	}
}

// TestFixtureTimelineLifecycle pins what the judge reads from the lifecycle
// recording: its first listed state and its final one.
func TestFixtureTimelineLifecycle(t *testing.T) {
	tl := fixtureTimeline(t, repoRoot+"/testdata/fixtures/lifecycle")
	if got, want := tl[0].pods.String(), "{shop/web-1@215}"; got != want {
		t.Errorf("first state: got %s, want %s", got, want)
	}
	if got, want := tl.final().pods.String(), "{shop/web-1@220 shop/web-4@230}"; got != want {
		t.Errorf("final state: got %s, want %s", got, want)
	}
}
