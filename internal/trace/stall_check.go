package trace

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// stallState is what the Tracer keeps of one watch for its stalls: the
// silence it follows and the gravest verdict told of the current one.
type stallState struct {
	Silence
	told string
}

// stallCheck looks at the open watches on a clock and tells each silence
// past its threshold. Its goroutine (or its guard, on Options.StallClock)
// is the Tracer's: Close stops it. open is guarded by the Tracer's mu.
type stallCheck struct {
	after time.Duration
	open  map[int]*reqState

	quit chan struct{}
	done chan struct{}
	once sync.Once

	mu      sync.Mutex   // guards guard against a re-arming after stop
	guard   timing.Timer // with Options.StallClock
	stopped bool
}

// stallPeriod is how often the open watches are looked at: often enough
// that a silence is told soon after it passes the threshold.
func stallPeriod(after time.Duration) time.Duration {
	return min(max(after/4, 10*time.Millisecond), time.Second)
}

// startStalls starts the stall check when opts ask for one (StallAfter),
// on opts.StallTicks or a ticker of its own.
func (t *Tracer) startStalls(opts Options) *stallCheck {
	c := &stallCheck{after: opts.StallAfter, open: map[int]*reqState{}, quit: make(chan struct{}), done: make(chan struct{})}
	if c.after <= 0 {
		close(c.done)
		return c
	}
	if opts.StallTicks == nil && opts.StallClock != nil {
		close(c.done)
		c.onClock(opts.StallClock, t.checkStalls)
		return c
	}
	go func() {
		defer close(c.done)
		ticks := opts.StallTicks
		if ticks == nil {
			tk := time.NewTicker(stallPeriod(c.after))
			defer tk.Stop()
			ticks = tk.C
		}
		for {
			select {
			case <-c.quit:
				return
			case <-ticks:
				t.checkStalls()
			}
		}
	}()
	return c
}

// onClock runs check every stallPeriod of clock's time, as a guard that
// re-arms itself: on a virtual clock it runs when a wait moves the time
// past it, before that wait returns, so a silence is judged at the time the
// wait made, whatever the other goroutines do next.
func (c *stallCheck) onClock(clock timing.TimerClock, check func()) {
	period := stallPeriod(c.after)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.guard = clock.AfterFunc(period, func() {
		check()
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.stopped {
			c.guard.Reset(period)
		}
	})
}

// stop ends the check's goroutine and waits for it, or stops its guard;
// safe twice. It must be called without the Tracer's mu: a check in
// progress takes it. A guard already firing may still look, and finds the
// Tracer closed.
func (c *stallCheck) stop() {
	c.once.Do(func() { close(c.quit) })
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.guard != nil {
		c.guard.Stop()
	}
}

// openedLocked starts following r, a watch whose headers came at now.
func (t *Tracer) openedLocked(r *reqState, now time.Time) {
	r.stall.Opened(now)
	t.stalls.open[r.n] = r
}

// stallEvent notes an event of r's for its silence.
func (r *reqState) stallEvent(now time.Time, e *Event) {
	r.stall.Event(now, e.Type, e.ResourceVersion, e.Annotations[initialEventsEnd] == "true")
}

// initialEventsEnd annotates the bookmark that ends a watch list's initial
// events.
const initialEventsEnd = "k8s.io/initial-events-end"

// checkStalls tells each open watch silent past the threshold, once per
// silence and again each time its verdict grows graver.
func (t *Tracer) checkStalls() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	now := t.clock()
	for _, n := range slices.Sorted(maps.Keys(t.stalls.open)) {
		r := t.stalls.open[n]
		if r.stall.Since(now) < t.stalls.after {
			r.stall.told = "" // a byte came: the next silence is told anew
			continue
		}
		st := r.stall.Judge(now)
		if verdictRank(st.Verdict) <= verdictRank(r.stall.told) {
			continue
		}
		r.stall.told = st.Verdict
		t.tellStallLocked(r, Step{Kind: KindStall, Req: r.n, Stall: st, At: t.sinceLocked()})
	}
}

// tellStallLocked tells a stall now, after whatever of its watch is held
// back that the reflector does not wait for (the reads of an unfinished
// event). Behind an event the reflector has yet to apply it waits its turn:
// the trace never tells a silence before bytes that came ahead of it.
func (t *Tracer) tellStallLocked(r *reqState, s Step) {
	if slices.ContainsFunc(r.pending, func(p Step) bool { return p.Kind == KindEvent }) {
		r.pending = append(r.pending, s)
		return
	}
	for _, p := range r.pending {
		t.tellLocked(p)
	}
	r.pending = r.pending[:0]
	t.tellLocked(s)
}
