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

// runReflector runs a reflector over lw into an undelta store inside the current
// synctest bubble until every goroutine is blocked, then stops it and checks that
// Run returned and every watch it opened was stopped.
func runReflector(t *testing.T, lw *fakeLW, opts ReflectorOptions, settle time.Duration) (*Reflector[*api.Pod], []push, []Step) {
	t.Helper()
	var log pushLog
	var steps []Step
	opts.Observe = func(s Step) { steps = append(steps, s) }
	if opts.Rand == nil {
		opts.Rand = func() float64 { return 0.5 }
	}
	store := NewUndeltaStore(log.fn, MetaNamespaceKey[*api.Pod])
	r := NewReflector[*api.Pod](lw, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	time.Sleep(settle)
	synctest.Wait()
	cancel()
	<-done
	lw.open.Wait()
	return r, log.get(), steps
}

func TestReflectorListThenWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists: []listAnswer{{items: []*api.Pod{pod("b", "5"), pod("a", "7")}, rv: "10"}},
			watches: []watchAnswer{{hold: true, events: []watch.Event[*api.Pod]{
				ev(watch.Added, "c", "11"), ev(watch.Modified, "a", "12"), bookmark("13", false), ev(watch.Deleted, "b", "14"),
			}}},
		}
		r, pushes, _ := runReflector(t, lw, ReflectorOptions{}, time.Second)
		want := []push{
			{[]string{"a@7", "b@5"}, "10"},
			{[]string{"a@7", "b@5", "c@11"}, "11"},
			{[]string{"a@12", "b@5", "c@11"}, "12"},
			{[]string{"a@12", "c@11"}, "14"},
		}
		if diff := cmp.Diff(want, pushes); diff != "" {
			t.Fatalf("pushes (-want +got):\n%s", diff)
		}
		lists, watches := lw.requests()
		if diff := cmp.Diff([]ListOptions{{}}, lists); diff != "" {
			t.Errorf("list requests (-want +got):\n%s", diff)
		}
		if len(watches) != 1 || watches[0].ResourceVersion != "10" || !watches[0].AllowWatchBookmarks {
			t.Fatalf("watch requests = %+v, want one from RV 10 with bookmarks", watches)
		}
		if ts := watches[0].TimeoutSeconds; ts < 300 || ts >= 600 {
			t.Errorf("timeoutSeconds = %d, want in [300, 600)", ts)
		}
		if got := r.LastSyncResourceVersion(); got != "14" {
			t.Errorf("LastSyncResourceVersion = %q, want 14", got)
		}
	})
}

func TestReflectorResumesAfterCleanEndWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists: []listAnswer{{items: []*api.Pod{pod("a", "3")}, rv: "5"}},
			watches: []watchAnswer{
				{events: []watch.Event[*api.Pod]{ev(watch.Modified, "a", "6"), bookmark("9", false)}},
				{hold: true, events: []watch.Event[*api.Pod]{ev(watch.Added, "b", "10")}},
			},
		}
		_, pushes, steps := runReflector(t, lw, ReflectorOptions{}, time.Second)
		lists, watches := lw.requests()
		if len(lists) != 1 {
			t.Fatalf("got %d list requests, want 1 (no relist after a clean end)", len(lists))
		}
		if len(watches) != 2 || watches[1].ResourceVersion != "9" {
			t.Fatalf("watch requests = %+v, want a second watch from the bookmark's RV 9", watches)
		}
		if last := pushes[len(pushes)-1]; !cmp.Equal(last, push{[]string{"a@6", "b@10"}, "10"}) {
			t.Fatalf("last push = %+v", last)
		}
		for _, s := range steps {
			if s.Kind == StepBackoff {
				t.Fatalf("backed off after a clean end: %+v", s)
			}
		}
	})
}

func TestReflectorRelistsAfterGone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watch watchAnswer
	}{
		{"410 answer", watchAnswer{err: gone()}},
		{"410 ERROR event", watchAnswer{events: []watch.Event[*api.Pod]{errEvent(410, meta.ReasonExpired)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{
					lists: []listAnswer{
						{items: []*api.Pod{pod("a", "3")}, rv: "5"},
						{items: []*api.Pod{pod("a", "3"), pod("b", "8")}, rv: "20"},
					},
					watches: []watchAnswer{
						{events: []watch.Event[*api.Pod]{ev(watch.Modified, "a", "6")}},
						tc.watch,
					},
				}
				_, pushes, _ := runReflector(t, lw, ReflectorOptions{}, time.Minute)
				lists, watches := lw.requests()
				wantLists := []ListOptions{{}, {ResourceVersion: "6", ResourceVersionMatch: MatchNotOlderThan}}
				if diff := cmp.Diff(wantLists, lists); diff != "" {
					t.Fatalf("list requests (-want +got):\n%s", diff)
				}
				if got := watches[len(watches)-1].ResourceVersion; got != "20" {
					t.Fatalf("watch after relist from RV %q, want 20", got)
				}
				want := []push{{[]string{"a@3"}, "5"}, {[]string{"a@6"}, "6"}, {[]string{"a@3", "b@8"}, "20"}}
				if diff := cmp.Diff(want, pushes); diff != "" {
					t.Fatalf("pushes (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestReflectorRelistFallsBackToMostRecentOnGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists: []listAnswer{
				{items: nil, rv: "5"},
				{err: gone()},
				{items: []*api.Pod{pod("z", "40")}, rv: "41"},
			},
			watches: []watchAnswer{{err: gone()}},
		}
		_, pushes, _ := runReflector(t, lw, ReflectorOptions{}, time.Minute)
		lists, _ := lw.requests()
		want := []ListOptions{{}, {ResourceVersion: "5", ResourceVersionMatch: MatchNotOlderThan}, {}}
		if diff := cmp.Diff(want, lists); diff != "" {
			t.Fatalf("list requests (-want +got):\n%s", diff)
		}
		if last := pushes[len(pushes)-1]; last.RV != "41" {
			t.Fatalf("last push at %q, want 41", last.RV)
		}
	})
}

func TestReflectorNeverPushesAnOlderState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A server that answers the relist with a state older than one already
		// applied must not move the pushed state back.
		lw := &fakeLW{
			lists: []listAnswer{
				{items: []*api.Pod{pod("a", "3")}, rv: "5"},
				{items: []*api.Pod{pod("a", "3")}, rv: "4"},
				{items: []*api.Pod{pod("a", "9")}, rv: "9"},
			},
			watches: []watchAnswer{{events: []watch.Event[*api.Pod]{ev(watch.Modified, "a", "7"), errEvent(410, meta.ReasonGone)}}},
		}
		_, pushes, _ := runReflector(t, lw, ReflectorOptions{}, 10*time.Minute)
		for i := 1; i < len(pushes); i++ {
			if c, err := meta.CompareResourceVersions(pushes[i].RV, pushes[i-1].RV); err != nil || c < 0 {
				t.Fatalf("pushes went back in time: %+v", pushes)
			}
		}
		if last := pushes[len(pushes)-1]; last.RV != "9" {
			t.Fatalf("last push %+v, want the state at 9", last)
		}
	})
}

func TestReflectorBacksOffWhenWatchEndsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists:   []listAnswer{{rv: "5"}},
			watches: []watchAnswer{{}, {}, {}, {hold: true}},
		}
		_, _, steps := runReflector(t, lw, ReflectorOptions{Rand: func() float64 { return 0.999999 }}, time.Minute)
		var waits []time.Duration
		for _, s := range steps {
			if s.Kind == StepBackoff {
				waits = append(waits, s.Wait.Round(time.Millisecond))
				if !errors.Is(s.Err, errWatchEndedAtOnce) {
					t.Errorf("backoff for %v, want errWatchEndedAtOnce", s.Err)
				}
			}
		}
		want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond}
		if diff := cmp.Diff(want, waits); diff != "" {
			t.Fatalf("backoff waits (-want +got):\n%s", diff)
		}
		if _, watches := lw.requests(); len(watches) != 4 {
			t.Fatalf("got %d watches, want 4", len(watches))
		}
	})
}

func TestBackoffGrowsCapsAndResets(t *testing.T) {
	b := backoffState{cfg: Backoff{}.withDefaults(), rand: func() float64 { return 0.999999999 }}
	now := time.Unix(1000, 0)
	var got []time.Duration
	for range 8 {
		now = now.Add(time.Second)
		got = append(got, b.next(now).Round(100*time.Millisecond))
	}
	now = now.Add(3 * time.Minute)
	got = append(got, b.next(now).Round(100*time.Millisecond))
	want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
		6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second,
		800 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("waits (-want +got):\n%s", diff)
	}
	low := backoffState{cfg: Backoff{}.withDefaults(), rand: func() float64 { return 0 }}
	if w := low.next(now); w != 400*time.Millisecond {
		t.Fatalf("lowest jitter gives %v, want 400ms (half the step)", w)
	}
}

func TestReflectorHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tooMany := rest.NewStatusError("GET list", 429, map[string][]string{"Retry-After": {"7"}}, nil)
		lw := &fakeLW{lists: []listAnswer{{err: tooMany}, {rv: "5"}}}
		var listedAt time.Duration
		_, _, steps := runReflector(t, lw, ReflectorOptions{}, time.Minute)
		for _, s := range steps {
			if s.Kind == StepBackoff {
				listedAt = s.Wait
			}
		}
		if listedAt != 7*time.Second {
			t.Fatalf("waited %v after a 429 with Retry-After: 7, want 7s", listedAt)
		}
		if lists, _ := lw.requests(); len(lists) != 2 {
			t.Fatalf("got %d lists, want 2", len(lists))
		}
	})
}

func TestReflectorPaginates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{lists: []listAnswer{
			{items: []*api.Pod{pod("a", "1")}, rv: "9", cont: "tok1"},
			{items: []*api.Pod{pod("b", "2")}, rv: "9", cont: "tok2"},
			{items: []*api.Pod{pod("c", "3")}, rv: "9"},
		}}
		_, pushes, _ := runReflector(t, lw, ReflectorOptions{PageSize: 1}, time.Second)
		lists, _ := lw.requests()
		want := []ListOptions{{Limit: 1}, {Limit: 1, Continue: "tok1"}, {Limit: 1, Continue: "tok2"}}
		if diff := cmp.Diff(want, lists); diff != "" {
			t.Fatalf("list requests (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]push{{[]string{"a@1", "b@2", "c@3"}, "9"}}, pushes); diff != "" {
			t.Fatalf("pushes (-want +got):\n%s", diff)
		}
	})
}

func TestReflectorWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{watches: []watchAnswer{{hold: true, events: []watch.Event[*api.Pod]{
			ev(watch.Added, "b", "3"), bookmark("4", false), ev(watch.Added, "a", "2"), bookmark("5", true),
			ev(watch.Modified, "a", "6"),
		}}}}
		_, pushes, _ := runReflector(t, lw, ReflectorOptions{WatchList: true}, time.Second)
		want := []push{{[]string{"a@2", "b@3"}, "5"}, {[]string{"a@6", "b@3"}, "6"}}
		if diff := cmp.Diff(want, pushes); diff != "" {
			t.Fatalf("pushes (-want +got):\n%s", diff)
		}
		lists, watches := lw.requests()
		if len(lists) != 0 || len(watches) != 1 {
			t.Fatalf("got %d lists and %d watches, want 0 and 1", len(lists), len(watches))
		}
		w := watches[0]
		if !w.SendInitialEvents || !w.AllowWatchBookmarks || w.ResourceVersionMatch != MatchNotOlderThan || w.ResourceVersion != "" {
			t.Fatalf("watch list request = %+v", w)
		}
	})
}

func TestReflectorWatchListFallsBackToList(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    watchAnswer
	}{
		{"422 answer", watchAnswer{err: rest.NewStatusError("GET w", 422, nil, []byte(`{"kind":"Status","code":422,"reason":"Invalid"}`))}},
		{"no closing bookmark", watchAnswer{events: []watch.Event[*api.Pod]{ev(watch.Added, "a", "2")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{lists: []listAnswer{{items: []*api.Pod{pod("a", "2")}, rv: "7"}}, watches: []watchAnswer{tc.w}}
				_, pushes, _ := runReflector(t, lw, ReflectorOptions{WatchList: true}, time.Minute)
				if diff := cmp.Diff([]push{{[]string{"a@2"}, "7"}}, pushes); diff != "" {
					t.Fatalf("pushes (-want +got):\n%s", diff)
				}
				_, watches := lw.requests()
				if last := watches[len(watches)-1]; last.SendInitialEvents || last.ResourceVersion != "7" {
					t.Fatalf("watch after fallback = %+v, want a plain watch from 7", last)
				}
			})
		})
	}
}

func TestReflectorStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{lists: []listAnswer{{rv: "1"}}}
		r := NewReflector[*api.Pod](lw, NewStore(MetaNamespaceKey[*api.Pod]), ReflectorOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		synctest.Wait()
		cancel()
		<-done
		lw.open.Wait() // the held-open watch was stopped
	})
}

func TestReflectorOtherErrorEventResumesWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{
			lists: []listAnswer{{items: []*api.Pod{pod("a", "3")}, rv: "5"}},
			watches: []watchAnswer{
				{events: []watch.Event[*api.Pod]{ev(watch.Modified, "a", "6"), errEvent(500, "InternalError")}},
				{hold: true, events: []watch.Event[*api.Pod]{ev(watch.Added, "b", "7")}},
			},
		}
		_, pushes, steps := runReflector(t, lw, ReflectorOptions{}, time.Minute)
		lists, watches := lw.requests()
		if len(lists) != 1 || len(watches) != 2 || watches[1].ResourceVersion != "6" {
			t.Fatalf("lists %+v, watches %+v: want one list and a second watch from 6", lists, watches)
		}
		backedOff := false
		for _, s := range steps {
			if s.Kind == StepBackoff {
				backedOff = true
				if se, ok := rest.AsStatusError(s.Err); !ok || se.Status.Code != 500 {
					t.Fatalf("backoff for %v, want the ERROR event's StatusError", s.Err)
				}
			}
		}
		if !backedOff {
			t.Fatalf("no backoff after an ERROR event")
		}
		if last := pushes[len(pushes)-1]; last.RV != "7" {
			t.Fatalf("last push %+v", last)
		}
	})
}
