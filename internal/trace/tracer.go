package trace

import (
	"errors"
	"math"
	"net"
	"net/http/httptrace"
	"sync"
	"time"
)

// Sink receives the steps of a trace, one at a time and in order, never
// concurrently. Close is called once, after the last step.
type Sink interface {
	Step(Step) error
	Close() error
}

// Options configure a Tracer; only Sinks is needed.
type Options struct {
	Sinks []Sink
	// Clock stamps steps; default time.Now. A fixed clock gives every step
	// the time 0, which keeps golden files stable.
	Clock func() time.Time
	// Analyses read the steps as they are recorded and tell verdicts of
	// their own (see Analysis), in this order; a Runner among them is
	// started by New and stopped by Close.
	Analyses []Analysis
	// Tap, when set, reads the connections of the client the Instrument
	// configures and tells what crosses them (h2tap.New: HTTP/2 frames).
	Tap ConnTap
}

// A ConnTap reads the connections a traced client makes and tells what
// crosses them through Tell (package h2tap: the frames of HTTP/2). New
// starts it with its Tracer; the Instrument's Configure wires it in.
type ConnTap interface {
	Start(t *Tracer)
	// WrapConn wraps each connection the client's transport made to
	// authority, after TLS.
	WrapConn(authority string, c net.Conn) net.Conn
	// Request returns the hooks that tie request n to what the tap sees of
	// it, and done, called once the request has its answer or its error.
	Request(n int) (trace *httptrace.ClientTrace, done func())
}

// maxPending bounds the steps one watch may hold back while waiting for the
// reflector (see Tracer): past it the oldest are told at once, out of order
// rather than without bound.
const maxPending = 4096

// Tracer turns what a client does into an ordered trace of Steps and hands
// them to its sinks. It is fed through an Instrument from four places: its
// RoundTripper (requests, responses, body reads, watch events found in the
// bodies), the reflector's Observe hook (decisions), the store wrapper and
// the push hook (what is applied, what is pushed); and by its ConnTap
// (frames, through Tell) and its analyses (verdicts, through Record and
// Judge). Each step goes to the analyses as it is recorded, and to the
// sinks once it is in its place.
//
// Order. A watch body is read on its watcher's goroutine, ahead of the
// reflector, and how far ahead is a matter of timing. So that a trace tells
// the run in the order the client acts on it, and the same run always reads
// the same way, the reads and events of a watch are held back until the
// reflector applies each event: the event is told, with the reads that
// brought it, just before the store takes it. What is left (the reads after
// the last event, the end of the body) is told when the reflector moves on
// from the watch. A watch of another client's (WithClient: a proxy's) has
// no reflector of podwatch's to wait for: its steps are told as they come,
// as HTTP/2 frames are.
//
// All methods are safe for concurrent use. After Close, steps are dropped.
type Tracer struct {
	mu     sync.Mutex
	clock  func() time.Time
	start  time.Time
	sinks  []Sink
	err    error // the first sink failure; that sink gets nothing more
	failed []bool
	closed bool

	nextReq int
	// held are the watches whose steps are held back, oldest first; cur is
	// the one the reflector is applying events from.
	held []*reqState
	cur  *reqState

	rv     string // the last resourceVersion told
	pushed map[string]string
	counts Stop

	// clients names the client of each request WithClient marked, by
	// number, for the steps of theirs that come later (HTTP/2 frames).
	clients  map[int]string
	analyses []Analysis
	tap      ConnTap
}

// New returns a Tracer writing to opts.Sinks. The caller must Close it.
func New(opts Options) *Tracer {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	t := &Tracer{clock: clock, start: clock(), sinks: opts.Sinks, failed: make([]bool, len(opts.Sinks)),
		analyses: opts.Analyses, tap: opts.Tap, clients: map[int]string{}}
	if t.tap != nil {
		t.tap.Start(t)
	}
	for _, a := range t.analyses {
		if r, ok := a.(Runner); ok {
			r.Start(t)
		}
	}
	return t
}

// Begin tells which server is traced and what is watched; call it first.
func (t *Tracer) Begin(server, watching string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emitLocked(Step{Kind: KindStart, Start: &Start{Server: server, Watching: watching}})
}

// Close stops the analyses' clocks, tells whatever is still held back and a
// summary, closes the sinks (the HTML page is written now) and returns the
// first sink failure.
func (t *Tracer) Close() error {
	// A runner's check in progress takes the lock: it is stopped first.
	for _, a := range t.analyses {
		if r, ok := a.(Runner); ok {
			r.Stop()
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return t.err
	}
	t.moveOnLocked()
	st := t.counts
	st.Duration = t.sinceLocked()
	if st.Events > 0 {
		// One decimal is plenty to compare formats, and keeps the line short.
		st.BytesPerEvent = math.Round(float64(st.WatchBytes)/float64(st.Events)*10) / 10
	}
	t.emitLocked(Step{Kind: KindStop, Stop: &st})
	t.closed = true
	for i, s := range t.sinks {
		if err := s.Close(); err != nil && !t.failed[i] {
			t.err = errors.Join(t.err, err)
		}
	}
	return t.err
}

// Err is the first sink failure so far.
func (t *Tracer) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

func (t *Tracer) sinceLocked() time.Duration { return t.clock().Sub(t.start) }

// Tell records steps that happen now and tells them at once, in order:
// what is told as it comes, such as a tapped connection and its frames (a
// frame's Req names the request it is of, and so its client). A ConnTap
// tells through it.
func (t *Tracer) Tell(steps ...Step) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock()
	for i := range steps {
		t.recordLocked(nil, Record{Step: &steps[i], Now: now})
	}
}

// emitLocked records s, of no request held back, as happening now.
func (t *Tracer) emitLocked(s Step) {
	t.recordLocked(nil, Record{Step: &s, Now: t.clock()})
}

// tellLocked hands s, already stamped, to every sink that has not failed.
func (t *Tracer) tellLocked(s Step) {
	if t.closed {
		return
	}
	t.count(s)
	for i, sink := range t.sinks {
		if t.failed[i] {
			continue
		}
		if err := sink.Step(s); err != nil {
			t.failed[i] = true
			t.err = errors.Join(t.err, err)
		}
	}
}

func (t *Tracer) count(s Step) {
	switch s.Kind {
	case KindRequest:
		t.counts.Requests++
	case KindEvent:
		if s.Event.Error == "" {
			t.counts.Events++
		}
	case KindPush:
		t.counts.Pushes++
	case KindStall:
		t.counts.Stalls++
	case KindMissed:
		t.counts.Missed++
		if t.counts.MissedHow == nil {
			t.counts.MissedHow = map[string]int{}
		}
		t.counts.MissedHow[s.Missed.How]++
	case KindDecision:
		switch s.Decision.Step {
		case "relist":
			t.counts.Relists++
		case "backoff":
			t.counts.Backoffs++
		}
	}
}

// holdLocked tells s, already stamped, now, or keeps it for later when its
// request is held.
func (t *Tracer) holdLocked(r *reqState, s Step) {
	if r == nil || !r.held {
		t.tellLocked(s)
		return
	}
	r.pending = append(r.pending, s)
	if len(r.pending) > maxPending {
		t.tellLocked(r.pending[0])
		r.pending = r.pending[1:]
	}
}

// applyNextLocked tells the current watch's held steps up to and including
// its next event, and returns that event (nil if none is held). initial marks
// it as one of a watch list's initial events.
func (t *Tracer) applyNextLocked(initial bool) *Event {
	r := t.cur
	if r == nil {
		return nil
	}
	for i, s := range r.pending {
		if s.Kind != KindEvent || s.Event.Error != "" {
			continue // a frame the client could not read was not applied
		}
		if initial {
			s.Event.Initial = true
			s.Event.Explain = explainInitial(s.Event)
		}
		for _, p := range r.pending[:i+1] {
			t.tellLocked(p)
		}
		r.pending = r.pending[i+1:]
		return s.Event
	}
	return nil
}

// moveOnLocked tells everything held back: the reflector has left every
// watch it had (it stopped it before taking its next step), so nothing more
// will come in front of it.
func (t *Tracer) moveOnLocked() {
	for _, r := range t.held {
		for _, p := range r.pending {
			t.tellLocked(p)
		}
		r.pending = nil
		r.held = false
	}
	t.held = nil
	t.cur = nil
}
