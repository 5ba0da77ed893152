package cache

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

var clockStart = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// TestReflectorBacksOffOnItsClock: a backoff is a wait asked of the
// reflector's clock, of the length its step tells.
func TestReflectorBacksOffOnItsClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := replayclock.NewVirtual(clockStart, nil)
		lw := &fakeLW{clock: clock, lists: []listAnswer{{err: rest.NewStatusError("GET l", 500, nil, nil)}, {items: []*api.Pod{pod("a", "2")}, rv: "2"}}}
		_, pushes, steps := runReflector(t, lw, ReflectorOptions{}, time.Second)
		if diff := cmp.Diff([]push{{[]string{"a@2"}, "2"}}, pushes); diff != "" {
			t.Fatalf("pushes (-want +got):\n%s", diff)
		}
		var waits []time.Duration
		for _, s := range steps {
			if s.Kind == StepBackoff {
				waits = append(waits, s.Wait)
			}
		}
		if len(waits) != 1 {
			t.Fatalf("backoffs %v, want one", waits)
		}
		if diff := cmp.Diff(waits, clock.Waits()); diff != "" {
			t.Fatalf("waits asked of the clock (-backoffs +asked):\n%s", diff)
		}
	})
}

// TestWatchListDeadlineIsAGuard: the deadline for a watch list's closing
// bookmark is a guard, not a wait. On a virtual clock, where a wait passes
// at once, it does not end the watch list before its events; it ends it
// once a wait moves the clock past it.
func TestWatchListDeadlineIsAGuard(t *testing.T) {
	initial := []watch.Event[*api.Pod]{ev(watch.Added, "a", "2"), bookmark("3", true)}
	t.Run("not passed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := &fakeLW{clock: replayclock.NewVirtual(clockStart, nil), watches: []watchAnswer{{hold: true, events: initial}}}
			opts := ReflectorOptions{WatchList: true}
			_, pushes, _ := runReflector(t, lw, opts, time.Second)
			if diff := cmp.Diff([]push{{[]string{"a@2"}, "3"}}, pushes); diff != "" {
				t.Fatalf("pushes (-want +got):\n%s", diff)
			}
			if lists, _ := lw.requests(); len(lists) != 0 {
				t.Fatalf("the watch list fell back to %d lists", len(lists))
			}
		})
	})
	t.Run("passed by a wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			clock := replayclock.NewVirtual(clockStart, nil)
			// The initial events never end with their bookmark.
			lw := &fakeLW{
				clock:   clock,
				lists:   []listAnswer{{items: []*api.Pod{pod("a", "2")}, rv: "4"}},
				watches: []watchAnswer{{hold: true, events: initial[:1]}},
			}
			var log pushLog
			var steps []Step
			store := NewUndeltaStore(log.fn, MetaNamespaceKey[*api.Pod])
			r := NewReflector[*api.Pod](lw, store, ReflectorOptions{WatchList: true,
				Observe: func(s Step) { steps = append(steps, s) }, Rand: func() float64 { return 0.5 }})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				r.Run(ctx)
			}()
			synctest.Wait()
			if lists, watches := lw.requests(); len(lists) != 0 || len(watches) != 1 {
				t.Fatalf("before the wait: %d lists, %d watches, want 0 and 1", len(lists), len(watches))
			}
			// Someone else's wait moves the clock past the deadline.
			clock.After(DefaultWatchListTimeout)
			synctest.Wait()
			cancel()
			<-done
			lw.open.Wait()
			if diff := cmp.Diff([]push{{[]string{"a@2"}, "4"}}, log.get()); diff != "" {
				t.Fatalf("pushes (-want +got):\n%s", diff)
			}
			var fellBack bool
			for _, s := range steps {
				fellBack = fellBack || s.Fallback == FallbackNoEndBookmark
			}
			if !fellBack {
				t.Fatalf("no step tells a fallback for want of the closing bookmark: %+v", steps)
			}
		})
	})
}

// TestWatchdogRunsOnTheClientsClock: a watch's watchdog is a guard on its
// client's clock (its resthook.Hooks.Clock): a silent watch ends with a
// *StallError once that clock passes timeoutSeconds plus the grace, and not
// before.
func TestWatchdogRunsOnTheClientsClock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	clock := replayclock.NewVirtual(clockStart, nil)
	cfg := rest.Config{Host: srv.URL}
	resthook.On(&cfg).Clock = clock
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
	w, err := lw.Watch(context.Background(), WatchOptions{TimeoutSeconds: 60})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	limit := 60*time.Second + DefaultStallGrace
	clock.After(limit - time.Millisecond)
	select {
	case e, ok := <-w.ResultChan():
		t.Fatalf("the watch ended (%v, %v) before its clock passed the limit", e, ok)
	case <-time.After(50 * time.Millisecond): // a margin for a wrong end, not a timing bound
	}
	clock.After(time.Millisecond)
	select {
	case e := <-w.ResultChan():
		var se *StallError
		if e.Type != watch.Error || !errors.As(e.Err, &se) {
			t.Fatalf("got %v %v, want an Error event with a *StallError", e.Type, e.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the watch did not end within 30s of its clock passing the limit")
	}
}
