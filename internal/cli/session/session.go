package session

import (
	"context"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// session is one run of watch (or record): the sources, the pod config and
// the printer, and the reasons to stop.
//
// Stopping has two speeds. The caller's ctx ending (Ctrl-C) stops everything
// at once. A graceful stop (--max-events reached, a replay played out, a fatal
// error, a failed write) stops only the sources: the api source's Stop lets
// the reflector finish the event in hand and still sends its update (sends
// to the pod config wait on the caller's ctx), the other sources' ctx ends,
// each source's channel is closed once its Run has returned, and the printer
// drains what the pod config published.
type session struct {
	env     base.Env
	flags   *Flags
	plan    Plan
	log     *base.Logger
	host    *url.URL // the server's
	out     *printer
	lw      *cache.ListWatch[*api.Pod]
	prog    *progress       // nil unless stderr is a terminal
	monitor *replay.Monitor // nil unless replaying
	played  <-chan struct{} // the fixture server's Done, with monitor
	clock   timing.Clock    // the replay's, with monitor; nil: the wall clock
	trace   trace.Instrument[*api.Pod]

	api        *source.API        // nil with --events
	closing    *closingSteps      // the api source's instrument
	stopSource context.CancelFunc // ends the sources' ctx

	limited atomic.Bool // --max-events reached
	events  atomic.Int64
	retries retries // on the reflector's goroutine
	held    holding // the pods the run ends with, for its closing line

	mu    sync.Mutex
	fatal error
}

// stop stops the sources gracefully; safe to call more than once, from any
// goroutine.
func (s *session) stop() {
	s.stopSource()
	if s.api != nil {
		s.api.Stop()
	}
}

func (s *session) fail(err error) {
	s.mu.Lock()
	if s.fatal == nil {
		s.fatal = err
	}
	s.mu.Unlock()
	s.stop()
}

func (s *session) result() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fatal != nil {
		return s.fatal
	}
	return s.out.Err()
}

// run blocks until ctx ends or a graceful stop, and returns once every
// goroutine it started has returned.
func (s *session) run(ctx context.Context) error {
	srcCtx, stop := context.WithCancel(ctx)
	defer stop()
	s.stopSource = stop
	if s.prog != nil {
		done := s.prog.start(srcCtx)
		defer done()
	}
	if s.monitor != nil {
		done := make(chan struct{})
		defer func() {
			stop()
			<-done
		}()
		go func() {
			defer close(done)
			s.awaitReplay(srcCtx)
		}()
	}
	if s.flags.events {
		s.runEvents(srcCtx)
	} else {
		s.runUpdates(ctx, srcCtx)
	}
	return s.result()
}

// awaitReplay stops the session once the replay is over, or returns when
// ctx ends.
func (s *session) awaitReplay(ctx context.Context) {
	select {
	case <-s.played:
		s.monitor.SetPlayed()
	case <-ctx.Done():
		return
	}
	select {
	case <-s.monitor.Finished():
		s.stop()
	case <-ctx.Done():
	}
}

func (s *session) reflectorOptions() cache.ReflectorOptions {
	opts := cache.ReflectorOptions{
		Name:             "pods",
		WatchList:        s.plan.WatchList,
		WatchListTimeout: s.flags.watchListTimeout,
		PageSize:         s.plan.ChunkSize,
		Observe:          s.observe,
		GiveUp:           givesUp,
	}
	if s.monitor != nil {
		// A replay is reproducible: its jitter (watch timeouts, backoffs)
		// comes from a fixed seed, so that two replays of one fixture send
		// the same requests and trace the same way. Only the reflector's
		// goroutine draws from it.
		opts.Rand = rand.New(rand.NewPCG(0x706f64, 0x7761746368)).Float64
	}
	return opts
}

// runEvents runs the reflector alone, printing each watch event as it arrives.
func (s *session) runEvents(srcCtx context.Context) {
	emit := func(ev watch.Event[*api.Pod]) {
		s.held.event(ev)
		s.out.event(ev)
		if s.out.Err() != nil {
			s.stop()
		}
	}
	seers := []listSeer{&s.held}
	if s.out.diffs != nil {
		seers = append(seers, s.out.diffs)
	}
	lw := seenLister{inner: s.lw, seers: seers}
	tee := &eventTee{inner: lw, print: emit, limit: s.plan.MaxEvents, clock: s.clock}
	store := s.trace.WrapStore(cache.NewStore(cache.MetaNamespaceKey[*api.Pod]))
	opts := s.reflectorOptions()
	opts.Observe = func(st cache.Step) {
		s.trace.Observe(st) // with updates, the api source feeds the trace itself
		s.observe(st)
	}
	if err := cache.NewReflector[*api.Pod](tee, store, opts).Run(srcCtx); err != nil {
		s.fail(withRemedy(err, s.host))
	}
}

// runUpdates runs the pod config with its sources and prints its updates.
func (s *session) runUpdates(ctx, srcCtx context.Context) {
	pc := podconfig.New(s.flags.pcMode, podconfig.Options{Now: s.env.Now, Report: s.report})
	var wg sync.WaitGroup
	start := func(name string, run func(context.Context, chan<- podconfig.PodUpdate)) {
		ch := pc.Channel(ctx, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(ch) // after Run returns nothing more is sent
			run(srcCtx, ch)
		}()
	}
	// The api source runs on ctx, not srcCtx: its graceful stop is s.api.Stop,
	// which lets the update of the event in hand through.
	start(podconfig.SourceAPI, func(_ context.Context, out chan<- podconfig.PodUpdate) {
		if err := s.api.Run(ctx, out); err != nil {
			s.fail(withRemedy(err, s.host))
		}
	})
	if s.flags.Manifests != "" {
		start(podconfig.SourceFile, source.NewFile(s.flags.Manifests, s.plan.Node, source.FileOptions{Report: s.report}).Run)
	}
	if s.flags.ManifestURL != "" {
		start(podconfig.SourceHTTP, source.NewHTTP(s.flags.ManifestURL, s.plan.Node, source.HTTPOptions{Report: s.report}).Run)
	}

	drain := make(chan struct{})
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		s.print(pc.Updates(), drain)
	}()
	<-srcCtx.Done()
	wg.Wait()
	pc.Wait()
	close(drain)
	<-printed
	s.closing.release()
}

// closingSteps is the api source's trace instrument, which keeps the
// reflector's stop back until the session releases it. The reflector stops
// as soon as the session asks, while the updates it pushed last are still on
// their way through the pod config to the printer: told at once, the stop
// would come before them, and on a terminal a pod update would print after
// "reflector stopped". The session releases it once the printer has printed
// everything, and closes the trace (its summary) after that.
type closingSteps struct {
	source.Instrument
	// stop is the reflector's last step, kept on the reflector's goroutine
	// and read by release once that goroutine has returned.
	stop *cache.Step
}

func (c *closingSteps) Observe(st cache.Step) {
	if st.Kind == cache.StepStopped {
		c.stop = &st
		return
	}
	c.Instrument.Observe(st)
}

// release tells the stop kept back; call it once the api source's Run has
// returned and its updates are printed.
func (c *closingSteps) release() {
	if c.stop != nil {
		c.Instrument.Observe(*c.stop)
		c.stop = nil
	}
}

// print prints updates until drain is closed, then what is left.
func (s *session) print(updates <-chan podconfig.PodUpdate, drain <-chan struct{}) {
	for {
		select {
		case u := <-updates:
			s.printUpdate(u)
		case <-drain:
			for {
				select {
				case u := <-updates:
					s.printUpdate(u)
				default:
					return
				}
			}
		}
	}
}

func (s *session) printUpdate(u podconfig.PodUpdate) {
	s.held.apply(u)
	s.out.update(u)
	if s.out.Err() != nil {
		s.stop()
	}
}

// report is told of what a source or the pod config dropped.
func (s *session) report(src string, err error) {
	s.log.Warnf("%s source: %s", src, err)
}

// isChange reports the event types --max-events counts.
func isChange(t watch.EventType) bool {
	return t == watch.Added || t == watch.Modified || t == watch.Deleted
}

// observe is the reflector's Observe hook, on the reflector's goroutine.
func (s *session) observe(st cache.Step) {
	s.retries.step(st)
	s.prog.step(st, s.retries.failed)
	if s.log.V(2) && (st.Kind != cache.StepResourceVersion || s.log.V(3)) {
		s.log.Printf("reflector: %s", describeStep(st))
	}
	finished := s.monitor.Step(st)
	if finished {
		s.stop()
	}
	switch st.Kind {
	case cache.StepResourceVersion:
		if !s.flags.events { // with --events, the holding follows what is printed
			s.held.at(st.ResourceVersion)
		}
	case cache.StepEvent:
		if !isChange(st.Event) {
			return
		}
		if n := s.events.Add(1); s.plan.MaxEvents > 0 && n >= int64(s.plan.MaxEvents) {
			// This event's update has been sent to the pod config already:
			// the push happens inside the store, before the step is observed.
			// The stop takes effect before the reflector's next event.
			s.limited.Store(true)
			s.stop()
		}
	case cache.StepBackoff:
		if !finished && !s.limited.Load() && !s.flags.Trace.TellsOnStderr() {
			// On a terminal the progress line counts the attempts.
			if w, again := s.retries.backoff(st.Err, st.Wait); !again || s.prog == nil {
				s.log.Warnf("%s", w)
			}
		}
	case cache.StepFallbackList:
		// A server without watch lists is no news; any other fallback is a
		// failure the user should hear of, although the list may well cure it.
		if st.Fallback != cache.FallbackUnsupported && !finished && !s.limited.Load() && !s.flags.Trace.TellsOnStderr() {
			if w := s.retries.fallback(st.Err); w != "" {
				s.log.Warnf("%s", w)
			}
		}
	}
}
