package trace

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/cache"
)

// TestDecisionsReadTypedSteps checks that each decision is told from the
// step's typed fields: the relist cause, the list's page and match, a stop's
// failure.
func TestDecisionsReadTypedSteps(t *testing.T) {
	refused := errors.New("undelta store: refused")
	for _, tc := range []struct {
		name string
		step cache.Step
		want Decision
	}{
		{"relist gone", cache.Step{Kind: cache.StepRelist, Cause: cache.RelistGone, ResourceVersion: "224", Err: errors.New("410")},
			Decision{Step: "relist", Reason: "resourceVersion 224 is too old (410)", Error: "410",
				Explain: "the next sync lists again instead of resuming the watch"}},
		{"relist refused", cache.Step{Kind: cache.StepRelist, Cause: cache.RelistRefused, Err: refused},
			Decision{Step: "relist", Reason: "the store refused a change", Error: refused.Error(),
				Explain: "the next sync lists again instead of resuming the watch"}},
		{"relist too old", cache.Step{Kind: cache.StepRelist, Cause: cache.RelistTooOld, ResourceVersion: "9"},
			Decision{Step: "relist", Reason: "list at 9 is too old; listing the most recent state",
				Explain: "the next sync lists again instead of resuming the watch"}},
		{"first list", cache.Step{Kind: cache.StepList, Page: 1},
			Decision{Step: "list", Explain: "nothing applied yet, so ask for the most recent state"}},
		{"relist", cache.Step{Kind: cache.StepList, Page: 1, ResourceVersion: "7", Match: cache.MatchNotOlderThan},
			Decision{Step: "list", ResourceVersion: "7",
				Explain: "a relist: ask for a state not older than 7, the last one applied, so the store never goes back in time"}},
		{"next page", cache.Step{Kind: cache.StepList, Page: 2},
			Decision{Step: "list", Explain: "list the next page, from the snapshot of the first"}},
		{"exact list", cache.Step{Kind: cache.StepList, Page: 1, ResourceVersion: "7", Match: cache.MatchExact},
			Decision{Step: "list", ResourceVersion: "7", Explain: "list at resourceVersion 7"}},
		{"stopped", cache.Step{Kind: cache.StepStopped},
			Decision{Step: "stopped", Explain: "the reflector stopped: its context ended"}},
		{"gave up", cache.Step{Kind: cache.StepStopped, Err: errors.New("list pods: 401")},
			Decision{Step: "stopped", Error: "list pods: 401",
				Explain: "the reflector gave up before its first sync: waiting would not cure this failure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decision(tc.step, explainStep(tc.step))
			if diff := cmp.Diff(tc.want, *got.Decision); diff != "" {
				t.Fatalf("decision (-want +got):\n%s", diff)
			}
		})
	}
}
