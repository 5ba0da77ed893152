package cache

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// fallbackView is what the fallback tests compare of a step: its kind, its
// relist or fallback cause, and its version.
type fallbackView struct {
	Kind     StepKind
	RV       string
	Cause    RelistCause
	Fallback FallbackCause
}

func fallbackSteps(steps []Step) []fallbackView {
	var out []fallbackView
	for _, s := range steps {
		switch s.Kind {
		case StepResourceVersion, StepEvent:
			continue
		}
		out = append(out, fallbackView{Kind: s.Kind, RV: s.ResourceVersion, Cause: s.Cause, Fallback: s.Fallback})
	}
	return out
}

func streamErr(err error) watch.Event[*api.Pod] {
	return watch.Event[*api.Pod]{Type: watch.Error, Err: err}
}

// TestWatchListFallsBackOnAnyFailure: whatever ends a watch list before its
// closing bookmark, the same round lists at once (no backoff in between),
// and the next sync, after a 410 on the watch, tries a watch list again. Only
// an answer that means "no watch lists here" turns them off; a 400 does not,
// as client-go tries a watch list at every sync whatever the answer.
func TestWatchListFallsBackOnAnyFailure(t *testing.T) {
	tooLarge := &watch.FrameTooLargeError{Offset: 0, Limit: 16 << 20}
	garbage := &jsonx.SyntaxError{Offset: 3, Msg: "not JSON"}
	for _, tc := range []struct {
		name     string
		first    watchAnswer
		fallback FallbackCause
		again    bool // the next sync is a watch list again
	}{
		{"frame too large", watchAnswer{events: []watch.Event[*api.Pod]{streamErr(tooLarge)}}, FallbackFailed, true},
		{"garbage", watchAnswer{events: []watch.Event[*api.Pod]{ev(watch.Added, "a", "2"), streamErr(garbage)}}, FallbackFailed, true},
		{"ended early", watchAnswer{events: []watch.Event[*api.Pod]{ev(watch.Added, "a", "2")}}, FallbackFailed, true},
		{"500", watchAnswer{err: rest.NewStatusError("GET w", 500, nil, nil)}, FallbackFailed, true},
		{"400", watchAnswer{err: rest.NewStatusError("GET w", 400, nil, nil)}, FallbackFailed, true},
		{"connection refused", watchAnswer{err: errors.New("dial tcp: connection refused")}, FallbackFailed, true},
		{"410", watchAnswer{err: gone()}, FallbackFailed, true},
		{"422 refused as invalid", watchAnswer{err: rest.NewStatusError("GET w", 422, nil, nil)}, FallbackUnsupported, false},
		{"405", watchAnswer{err: rest.NewStatusError("GET w", 405, nil, nil)}, FallbackUnsupported, false},
		{"501", watchAnswer{err: rest.NewStatusError("GET w", 501, nil, nil)}, FallbackUnsupported, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{
					lists: []listAnswer{{items: []*api.Pod{pod("a", "3")}, rv: "7"}, {rv: "9"}},
					watches: []watchAnswer{
						tc.first,
						// The watch after the list ends with a 410: a relist.
						{events: []watch.Event[*api.Pod]{errEvent(410, meta.ReasonExpired)}},
						// The relist: a watch list again, or a list (its
						// watch then held).
						{hold: true, events: []watch.Event[*api.Pod]{bookmark("8", true)}},
					},
				}
				_, pushes, steps := runReflector(t, lw, ReflectorOptions{WatchList: true, Name: "pods"}, 10*time.Minute)
				got := fallbackSteps(steps)
				head := []fallbackView{
					{Kind: StepWatchList}, {Kind: StepFallbackList, Fallback: tc.fallback},
					{Kind: StepList}, {Kind: StepReplace, RV: "7"},
					{Kind: StepWatch, RV: "7"}, {Kind: StepRelist, RV: "7", Cause: RelistGone}, {Kind: StepBackoff},
				}
				if len(got) < len(head) {
					t.Fatalf("steps %+v, want them to start %+v", got, head)
				}
				if diff := cmp.Diff(head, got[:len(head)]); diff != "" {
					t.Fatalf("steps up to the relist (-want +got):\n%s", diff)
				}
				_, watches := lw.requests()
				if len(watches) < 3 || watches[2].SendInitialEvents != tc.again {
					t.Fatalf("watches %+v: the relist's sendInitialEvents want %t", watches, tc.again)
				}
				if len(pushes) < 2 {
					t.Fatalf("pushes %+v, want the listed state then the relisted one", pushes)
				}
			})
		})
	}
}

// TestWatchListFailureReportsItself: the fallback step carries the watch
// list's own failure, typed, so that a 400 (a bad selector, say) is told as
// the 400 it is.
func TestWatchListFailureReportsItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bad := rest.NewStatusError("GET w", 400, nil, []byte(`{"kind":"Status","code":400,"reason":"BadRequest","message":"unable to parse requirement"}`))
		lw := &fakeLW{
			lists:   []listAnswer{{err: bad}, {rv: "4"}},
			watches: []watchAnswer{{err: bad}, {err: bad}, {hold: true}},
		}
		_, _, steps := runReflector(t, lw, ReflectorOptions{WatchList: true, Name: "pods"}, 10*time.Minute)
		var fellBack, backedOff bool
		for _, s := range steps {
			se, _ := rest.AsStatusError(s.Err)
			switch {
			case s.Kind == StepFallbackList && se != nil && se.Status.Code == 400:
				fellBack = true
			case s.Kind == StepBackoff && se != nil && se.Status.Code == 400:
				var pe *PhaseError
				backedOff = errors.As(s.Err, &pe) && pe.Phase == PhaseList
			}
		}
		if !fellBack || !backedOff {
			t.Fatalf("fallback with the 400: %t, backoff on the list's 400: %t; want both; steps %+v", fellBack, backedOff, fallbackSteps(steps))
		}
		if _, watches := lw.requests(); !watches[1].SendInitialEvents {
			t.Fatalf("the sync after the backoff sent %+v, want a watch list again", watches[1])
		}
	})
}

// TestWatchListWithoutEndBookmark: a watch list whose closing bookmark never
// comes is given up after WatchListTimeout (fake time), with a typed cause,
// and a list syncs the store at once.
func TestWatchListWithoutEndBookmark(t *testing.T) {
	for _, timeout := range []time.Duration{0, 5 * time.Second} {
		want := timeout
		if want == 0 {
			want = DefaultWatchListTimeout
		}
		t.Run(want.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Initial objects and progress bookmarks, never the closing one.
				unended := watchAnswer{hold: true, events: []watch.Event[*api.Pod]{ev(watch.Added, "a", "3"), bookmark("5", false)}}
				opts := ReflectorOptions{WatchList: true, WatchListTimeout: timeout, Name: "pods"}
				fallback := func(steps []Step) *Step {
					for i, s := range steps {
						if s.Kind == StepFallbackList {
							return &steps[i]
						}
					}
					return nil
				}
				lw := &fakeLW{watches: []watchAnswer{unended}}
				if _, _, steps := runReflector(t, lw, opts, want-time.Second); fallback(steps) != nil {
					t.Fatalf("fell back before %v: %+v", want, fallbackSteps(steps))
				}
				lw = &fakeLW{
					lists:   []listAnswer{{items: []*api.Pod{pod("a", "3"), pod("b", "4")}, rv: "7"}},
					watches: []watchAnswer{unended},
				}
				_, pushes, steps := runReflector(t, lw, opts, want+time.Second)
				fb := fallback(steps)
				var te *WatchListTimeoutError
				if fb == nil || fb.Fallback != FallbackNoEndBookmark || !errors.As(fb.Err, &te) || te.Timeout != want || te.Items != 1 {
					t.Fatalf("fallback step %+v, want cause %v with a *WatchListTimeoutError of %v after 1 object", fb, FallbackNoEndBookmark, want)
				}
				wantPushes := []push{{[]string{"a@3", "b@4"}, "7"}}
				if diff := cmp.Diff(wantPushes, pushes); diff != "" {
					t.Fatalf("pushes (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestExpiredContinueListsWhole: a continued page answering 410 (its
// token's snapshot compacted away) is followed at once by one list without
// limit at the same version, which cannot expire the same way; a new
// paginated list could, again and again on a busy server.
func TestExpiredContinueListsWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists: []listAnswer{
				{items: []*api.Pod{pod("a", "3")}, rv: "9", cont: "t1"}, {err: gone()},
				{items: []*api.Pod{pod("a", "3"), pod("b", "10")}, rv: "11"},
				// The relist after a 410 on the watch: the same again, from 11.
				{items: []*api.Pod{pod("a", "3")}, rv: "12", cont: "t2"}, {err: gone()},
				{items: []*api.Pod{pod("a", "3"), pod("b", "10")}, rv: "13"},
			},
			watches: []watchAnswer{{events: []watch.Event[*api.Pod]{errEvent(410, meta.ReasonExpired)}}, {hold: true}},
		}
		_, pushes, steps := runReflector(t, lw, ReflectorOptions{PageSize: 1, Name: "pods"}, 10*time.Minute)
		lists, _ := lw.requests()
		want := []ListOptions{
			{Limit: 1}, {Limit: 1, Continue: "t1"}, {},
			{ResourceVersion: "11", ResourceVersionMatch: MatchNotOlderThan, Limit: 1}, {Limit: 1, Continue: "t2"},
			{ResourceVersion: "11", ResourceVersionMatch: MatchNotOlderThan},
		}
		if diff := cmp.Diff(want, lists); diff != "" {
			t.Fatalf("list requests (-want +got):\n%s", diff)
		}
		expired := 0
		for _, s := range steps {
			if s.Kind == StepRelist && s.Cause == RelistPageExpired && rest.IsGone(s.Err) {
				expired++
			}
		}
		if expired != 2 {
			t.Fatalf("%d relist steps with cause %v, want 2; steps %+v", expired, RelistPageExpired, fallbackSteps(steps))
		}
		wantPushes := []push{{[]string{"a@3", "b@10"}, "11"}, {[]string{"a@3", "b@10"}, "13"}}
		if diff := cmp.Diff(wantPushes, pushes); diff != "" {
			t.Fatalf("pushes (-want +got):\n%s", diff)
		}
	})
}

// TestWatchListGivesUpWithoutFallback: before the first sync, a watch list
// failure GiveUp gives up on (an untrusted certificate, say) ends Run at
// once; a list would meet the same end.
func TestWatchListGivesUpWithoutFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		untrusted := errors.New("x509: certificate signed by unknown authority")
		lw := &fakeLW{watches: []watchAnswer{{err: untrusted}}}
		giveUp := func(err error) bool { return errors.Is(err, untrusted) }
		err, returned, steps := runUntilReturn(t, lw, ReflectorOptions{WatchList: true, Name: "pods", GiveUp: giveUp}, time.Hour)
		if !returned || !errors.Is(err, untrusted) {
			t.Fatalf("Run returned %v (by itself: %t), want the watch list's failure", err, returned)
		}
		if lists, _ := lw.requests(); len(lists) != 0 {
			t.Fatalf("%d lists after a failure given up on, want none; steps %+v", len(lists), fallbackSteps(steps))
		}
	})
}
