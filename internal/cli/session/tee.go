package session

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// eventTee is a ListerWatcher that prints every watch event on its way to the
// reflector (--events). Printing happens before the event is handed on, so
// by the time the reflector has applied an event it has been printed.
//
// With a limit (--max-events) it prints nothing after the limit-th change
// event that follows the initial state, counted as the session counts them,
// so that events the reflector takes before it sees the stop stay unprinted.
type eventTee struct {
	inner cache.ListerWatcher[*api.Pod]
	print func(watch.Event[*api.Pod])
	limit int
	// clock is the client's (nil: the wall clock), which the reflector
	// over the tee runs on as it would over the client's ListWatch.
	clock timing.Clock

	mu      sync.Mutex
	changes int
}

// Clock tells a reflector over t the clock it runs on (see cache's
// clockOf): a replay's waits pass on the replay's time.
func (t *eventTee) Clock() timing.Clock { return t.clock }

func (t *eventTee) List(ctx context.Context, opts cache.ListOptions) (*rest.List[*api.Pod], error) {
	return t.inner.List(ctx, opts)
}

func (t *eventTee) Watch(ctx context.Context, opts cache.WatchOptions) (watch.Interface[*api.Pod], error) {
	w, err := t.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	tw := &teeWatcher{inner: w, tee: t, out: make(chan watch.Event[*api.Pod]), stop: make(chan struct{}), done: make(chan struct{})}
	go tw.loop(opts.SendInitialEvents)
	return tw, nil
}

// emit prints ev unless the limit has been passed; counted says whether ev
// counts towards it.
func (t *eventTee) emit(ev watch.Event[*api.Pod], counted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.limit > 0 && t.changes >= t.limit {
		return
	}
	if counted {
		t.changes++
	}
	t.print(ev)
}

// teeWatcher owns one goroutine, which moves events from inner to out.
type teeWatcher struct {
	inner watch.Interface[*api.Pod]
	tee   *eventTee
	out   chan watch.Event[*api.Pod]
	stop  chan struct{}
	once  sync.Once
	done  chan struct{}
}

func (w *teeWatcher) ResultChan() <-chan watch.Event[*api.Pod] { return w.out }

// Stop ends the inner watch and waits for the goroutine; safe to call twice.
func (w *teeWatcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	w.inner.Stop()
	<-w.done
}

// loop forwards events; initial is true while a watch list's initial events
// (up to the bookmark that ends them) are arriving: those do not count.
func (w *teeWatcher) loop(initial bool) {
	defer close(w.done)
	defer close(w.out)
	for {
		var ev watch.Event[*api.Pod]
		var ok bool
		select {
		case <-w.stop:
			return
		case ev, ok = <-w.inner.ResultChan():
			if !ok {
				return
			}
		}
		w.tee.emit(ev, !initial && isChange(ev.Type))
		if initial && ev.Type == watch.Bookmark && ev.Object != nil &&
			ev.Object.Meta().Annotations[cache.InitialEventsEndAnnotation] == "true" {
			initial = false
		}
		select {
		case w.out <- ev:
		case <-w.stop:
			return
		}
	}
}

// describeStep is a reflector step on one line, for -v 2.
func describeStep(st cache.Step) string {
	var b strings.Builder
	b.WriteString(string(st.Kind))
	if st.Event != "" {
		b.WriteString(" " + string(st.Event))
	}
	if st.ResourceVersion != "" {
		b.WriteString(" rv=" + st.ResourceVersion)
	}
	if st.Kind == cache.StepReplace || st.Kind == cache.StepWatchEnded {
		fmt.Fprintf(&b, " items=%d", st.Items)
	}
	if st.Wait > 0 {
		fmt.Fprintf(&b, " wait=%s", st.Wait.Round(1e6))
	}
	if st.Cause != 0 {
		b.WriteString(" cause=" + st.Cause.String())
	}
	if st.Err != nil {
		b.WriteString(": " + base.OneLine(st.Err.Error()))
	}
	return b.String()
}
