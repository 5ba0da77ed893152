package cache

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// stepView is what TestReflectorTransitions compares of a Step: every typed
// field, with the error reduced to its phase (or "error" for a bare one).
type stepView struct {
	Kind  StepKind
	RV    string
	Match string
	Page  int
	Cause RelistCause
	Items int
	Event watch.EventType
	Err   string
}

func view(steps []Step) []stepView {
	var out []stepView
	for _, s := range steps {
		if s.Kind == StepResourceVersion {
			continue // one after every replace and event
		}
		v := stepView{Kind: s.Kind, RV: s.ResourceVersion, Match: s.Match, Page: s.Page, Cause: s.Cause, Items: s.Items, Event: s.Event}
		var pe *PhaseError
		switch {
		case errors.As(s.Err, &pe):
			v.Err = string(pe.Phase) + " " + pe.Name
		case s.Err != nil:
			v.Err = "error"
		}
		out = append(out, v)
	}
	return out
}

// TestReflectorTransitions scripts the server for each transition of the
// loop and checks the steps reported, one per transition, with their typed
// fields. Each run ends with a watch held open, so the last steps are that
// watch and the stop.
func TestReflectorTransitions(t *testing.T) {
	held := watchAnswer{hold: true}
	for _, tc := range []struct {
		name string
		lw   *fakeLW
		opts ReflectorOptions
		want []stepView
	}{
		{
			name: "sync in pages, watch, clean end, watch again",
			lw: &fakeLW{
				lists: []listAnswer{{items: []*api.Pod{pod("a", "1")}, rv: "9", cont: "t"}, {items: []*api.Pod{pod("b", "2")}, rv: "9"}},
				watches: []watchAnswer{
					{events: []watch.Event[*api.Pod]{ev(watch.Added, "c", "10"), bookmark("12", false)}}, held,
				},
			},
			opts: ReflectorOptions{PageSize: 1},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepList, Page: 2}, {Kind: StepReplace, RV: "9", Items: 2},
				{Kind: StepWatch, RV: "9"}, {Kind: StepEvent, RV: "10", Event: watch.Added}, {Kind: StepEvent, RV: "12", Event: watch.Bookmark},
				{Kind: StepWatchEnded, RV: "12", Items: 2},
				{Kind: StepWatch, RV: "12"}, {Kind: StepStopped},
			},
		},
		{
			name: "watch gone: relist, backoff, sync not older than the last version",
			lw: &fakeLW{
				lists:   []listAnswer{{rv: "5"}, {rv: "8"}},
				watches: []watchAnswer{{err: gone()}, held},
			},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "5"},
				{Kind: StepWatch, RV: "5"}, {Kind: StepRelist, RV: "5", Cause: RelistGone, Err: "error"},
				{Kind: StepBackoff, Err: "watch pods"},
				{Kind: StepList, RV: "5", Match: MatchNotOlderThan, Page: 1}, {Kind: StepReplace, RV: "8"},
				{Kind: StepWatch, RV: "8"}, {Kind: StepStopped},
			},
		},
		{
			name: "relist too old: the most recent state at once",
			lw: &fakeLW{
				lists:   []listAnswer{{rv: "5"}, {err: gone()}, {rv: "30"}},
				watches: []watchAnswer{{events: []watch.Event[*api.Pod]{errEvent(410, meta.ReasonExpired)}}, held},
			},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "5"},
				{Kind: StepWatch, RV: "5"}, {Kind: StepRelist, RV: "5", Cause: RelistGone, Err: "error"},
				{Kind: StepBackoff, Err: "watch pods"},
				{Kind: StepList, RV: "5", Match: MatchNotOlderThan, Page: 1},
				{Kind: StepRelist, RV: "5", Cause: RelistTooOld, Err: "error"},
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "30"},
				{Kind: StepWatch, RV: "30"}, {Kind: StepStopped},
			},
		},
		{
			name: "other watch failure: backoff, then watch again without a relist",
			lw: &fakeLW{
				lists:   []listAnswer{{rv: "5"}},
				watches: []watchAnswer{{events: []watch.Event[*api.Pod]{errEvent(500, "InternalError")}}, held},
			},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "5"},
				{Kind: StepWatch, RV: "5"}, {Kind: StepBackoff, Err: "watch pods"},
				{Kind: StepWatch, RV: "5"}, {Kind: StepStopped},
			},
		},
		{
			name: "list failure: backoff, then sync again",
			lw: &fakeLW{
				lists:   []listAnswer{{err: rest.NewStatusError("GET x", 503, nil, nil)}, {rv: "5"}},
				watches: []watchAnswer{held},
			},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepBackoff, Err: "list pods"},
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "5"},
				{Kind: StepWatch, RV: "5"}, {Kind: StepStopped},
			},
		},
		{
			name: "store refuses a change: relist",
			lw: &fakeLW{
				lists: []listAnswer{{items: []*api.Pod{pod("a", "7")}, rv: "7"}, {rv: "9"}},
				// An older version of a, which the undelta store refuses.
				watches: []watchAnswer{{events: []watch.Event[*api.Pod]{ev(watch.Modified, "a", "6")}}, held},
			},
			want: []stepView{
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "7", Items: 1},
				{Kind: StepWatch, RV: "7"}, {Kind: StepRelist, Cause: RelistRefused, Err: "store pods"},
				{Kind: StepBackoff, Err: "store pods"},
				{Kind: StepList, RV: "7", Match: MatchNotOlderThan, Page: 1}, {Kind: StepReplace, RV: "9"},
				{Kind: StepWatch, RV: "9"}, {Kind: StepStopped},
			},
		},
		{
			name: "watch list, then changes on the same stream",
			lw: &fakeLW{watches: []watchAnswer{{hold: true, events: []watch.Event[*api.Pod]{
				ev(watch.Added, "a", "2"), bookmark("3", true), ev(watch.Modified, "a", "4"),
			}}}},
			opts: ReflectorOptions{WatchList: true},
			want: []stepView{
				{Kind: StepWatchList, Match: MatchNotOlderThan}, {Kind: StepReplace, RV: "3", Items: 1},
				{Kind: StepEvent, RV: "4", Event: watch.Modified}, {Kind: StepStopped},
			},
		},
		{
			name: "watch list refused: fall back to a list at once",
			lw: &fakeLW{
				lists:   []listAnswer{{rv: "7"}},
				watches: []watchAnswer{{err: rest.NewStatusError("GET w", 422, nil, nil)}, held},
			},
			opts: ReflectorOptions{WatchList: true},
			want: []stepView{
				{Kind: StepWatchList, Match: MatchNotOlderThan}, {Kind: StepFallbackList, Err: "watch-list pods"},
				{Kind: StepList, Page: 1}, {Kind: StepReplace, RV: "7"},
				{Kind: StepWatch, RV: "7"}, {Kind: StepStopped},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tc.opts.Name = "pods"
				_, _, steps := runReflector(t, tc.lw, tc.opts, time.Minute)
				if diff := cmp.Diff(tc.want, view(steps)); diff != "" {
					t.Fatalf("steps (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// runUntilReturn runs a reflector over lw until Run returns by itself or
// limit passes (then it cancels); it returns Run's result and whether it
// returned by itself.
func runUntilReturn(t *testing.T, lw *fakeLW, opts ReflectorOptions, limit time.Duration) (error, bool, []Step) {
	t.Helper()
	var steps []Step
	opts.Observe = func(s Step) { steps = append(steps, s) }
	r := NewReflector[*api.Pod](lw, NewStore(MetaNamespaceKey[*api.Pod]), opts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	select {
	case err := <-done:
		lw.open.Wait()
		return err, true, steps
	case <-time.After(limit):
	}
	cancel()
	err := <-done
	lw.open.Wait()
	return err, false, steps
}

// TestReflectorGivesUpBeforeTheFirstSync: a failure GiveUp accepts makes Run
// return it, typed, with no backoff and no ctx ending.
func TestReflectorGivesUpBeforeTheFirstSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forbidden := rest.NewStatusError("GET x", 403, nil, nil)
		lw := &fakeLW{lists: []listAnswer{{err: rest.NewStatusError("GET x", 503, nil, nil)}, {err: forbidden}}}
		var asked []error
		giveUp := func(err error) bool {
			asked = append(asked, err)
			return rest.IsForbidden(err)
		}
		err, returned, steps := runUntilReturn(t, lw, ReflectorOptions{Name: "pods", GiveUp: giveUp}, time.Hour)
		if !returned {
			t.Fatalf("Run did not return by itself; steps %+v", view(steps))
		}
		var pe *PhaseError
		if !errors.As(err, &pe) || pe.Phase != PhaseList || pe.Name != "pods" || !errors.Is(err, forbidden) {
			t.Fatalf("Run returned %v, want the 403 as a list failure of pods", err)
		}
		if len(asked) != 2 {
			t.Fatalf("GiveUp asked %d times, want 2 (the 503, retried, then the 403)", len(asked))
		}
		want := []stepView{
			{Kind: StepList, Page: 1}, {Kind: StepBackoff, Err: "list pods"},
			{Kind: StepList, Page: 1}, {Kind: StepStopped, Err: "list pods"},
		}
		if diff := cmp.Diff(want, view(steps)); diff != "" {
			t.Fatalf("steps (-want +got):\n%s", diff)
		}
	})
}

// TestReflectorNeverGivesUpAfterTheFirstSync: once the store is filled,
// GiveUp is not asked and every failure is retried.
func TestReflectorNeverGivesUpAfterTheFirstSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forbidden := rest.NewStatusError("GET x", 403, nil, nil)
		lw := &fakeLW{
			lists:   []listAnswer{{rv: "5"}},
			watches: []watchAnswer{{err: forbidden}, {err: forbidden}, {err: forbidden}, {hold: true}},
		}
		asked := 0
		giveUp := func(error) bool { asked++; return true }
		err, returned, steps := runUntilReturn(t, lw, ReflectorOptions{GiveUp: giveUp}, time.Hour)
		if returned || err != nil {
			t.Fatalf("Run returned %v by itself, want it to run until its ctx ended, then nil", err)
		}
		if asked != 0 {
			t.Fatalf("GiveUp asked %d times after the first sync, want never", asked)
		}
		if _, watches := lw.requests(); len(watches) != 4 {
			t.Fatalf("%d watches, want 4: three refused, retried, and one held", len(watches))
		}
		if last := steps[len(steps)-1]; last.Kind != StepStopped || last.Err != nil {
			t.Fatalf("last step %+v, want a stop without error", last)
		}
	})
}
