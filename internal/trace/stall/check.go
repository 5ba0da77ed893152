package stall

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace"
)

// Options configure a Check; After is needed.
type Options struct {
	// After is how long an open watch may go without a byte before its
	// silence is told (DefaultAfter for podwatch's commands); it must be
	// positive.
	After time.Duration
	// Ticks, when set (a test's), says when to look at the watches;
	// otherwise a ticker of the Check's own does, stopped by the Tracer's
	// Close.
	Ticks <-chan time.Time
	// Clock, when set (and Ticks not), times the looks instead: a guard
	// re-armed on it, which looks at the watches on the goroutine that
	// moves its time. A replay's virtual clock then judges a silence at
	// the moment its time passes, the same on every run.
	Clock timing.TimerClock
}

// Check is the trace's analysis of silences (a trace.Runner): it follows
// each open watch from the steps recorded and, looking at them on a clock,
// tells a stall step for each one silent past Options.After, once per
// silence and again each time its verdict grows graver.
type Check struct {
	opts Options
	t    *trace.Tracer

	// pending are the watches sent and not yet answered, open those
	// answered 2xx whose body has not ended; both by request number, read
	// and written under the Tracer's lock (Recorded, Judge).
	pending map[int]Silence
	open    map[int]*watch

	quit chan struct{}
	done chan struct{}
	once sync.Once

	mu      sync.Mutex   // guards guard against a re-arming after Stop
	guard   timing.Timer // with Options.Clock
	stopped bool
}

// watch is what a Check keeps of one open watch: the silence it follows
// and the gravest verdict told of the current one.
type watch struct {
	Silence
	told string
}

// New returns a Check; give it to the Tracer in trace.Options.Analyses.
func New(opts Options) *Check {
	return &Check{opts: opts, pending: map[int]Silence{}, open: map[int]*watch{},
		quit: make(chan struct{}), done: make(chan struct{})}
}

// period is how often the open watches are looked at: often enough that a
// silence is told soon after it passes the threshold.
func period(after time.Duration) time.Duration {
	return min(max(after/4, 10*time.Millisecond), time.Second)
}

// Start begins looking at the watches of t: on Options.Ticks, on
// Options.Clock, or on a ticker of its own.
func (c *Check) Start(t *trace.Tracer) {
	c.t = t
	if c.opts.Ticks == nil && c.opts.Clock != nil {
		close(c.done)
		c.onClock(c.opts.Clock)
		return
	}
	go func() {
		defer close(c.done)
		ticks := c.opts.Ticks
		if ticks == nil {
			tk := time.NewTicker(period(c.opts.After))
			defer tk.Stop()
			ticks = tk.C
		}
		for {
			select {
			case <-c.quit:
				return
			case <-ticks:
				c.check()
			}
		}
	}()
}

// onClock looks every period of clock's time, as a guard that re-arms
// itself: on a virtual clock it runs when a wait moves the time past it,
// before that wait returns, so a silence is judged at the time the wait
// made, whatever the other goroutines do next.
func (c *Check) onClock(clock timing.TimerClock) {
	p := period(c.opts.After)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.guard = clock.AfterFunc(p, func() {
		c.check()
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.stopped {
			c.guard.Reset(p)
		}
	})
}

// Stop ends the Check's goroutine and waits for it, or stops its guard;
// safe twice. A guard already firing may still look, and finds the Tracer
// closed.
func (c *Check) Stop() {
	c.once.Do(func() { close(c.quit) })
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.guard != nil {
		c.guard.Stop()
	}
}

// Recorded follows the watches: a watch request's parameters, its 2xx
// answer (the silence counts from it), each read and event, and the end of
// its body.
func (c *Check) Recorded(rec *trace.Record) {
	s := rec.Step
	switch s.Kind {
	case trace.KindRequest:
		if s.Request.Type == "watch" || s.Request.Type == "watch-list" {
			c.pending[s.Req] = NewSilence(s.Request.Values())
		}
	case trace.KindResponse:
		w, ok := c.pending[s.Req]
		delete(c.pending, s.Req)
		if r := s.Response; ok && r.Error == "" && r.Status >= 200 && r.Status <= 299 {
			w.Opened(rec.Now)
			c.open[s.Req] = &watch{Silence: w}
		}
	case trace.KindRead:
		if w := c.open[s.Req]; w != nil {
			w.Byte(rec.Now)
		}
	case trace.KindEvent:
		if w := c.open[s.Req]; w != nil {
			e := s.Event
			w.Event(rec.Now, e.Type, e.ResourceVersion, e.Annotations[cache.InitialEventsEndAnnotation] == "true")
		}
	case trace.KindBodyEnd:
		delete(c.open, s.Req)
	}
}

// check looks at the open watches now.
func (c *Check) check() { c.t.Judge(c.judge) }

// judge tells each open watch silent past the threshold.
func (c *Check) judge(now time.Time, tell func(trace.Step)) {
	for _, n := range slices.Sorted(maps.Keys(c.open)) {
		w := c.open[n]
		if w.Since(now) < c.opts.After {
			w.told = "" // a byte came: the next silence is told anew
			continue
		}
		st := w.Judge(now)
		if verdictRank(st.Verdict) <= verdictRank(w.told) {
			continue
		}
		w.told = st.Verdict
		tell(trace.Step{Kind: trace.KindStall, Req: n, Stall: st})
	}
}
