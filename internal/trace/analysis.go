package trace

import (
	"slices"
	"time"

	"github.com/podwatch/podwatch/rest/meta"
)

// An Analysis reads the steps of a trace as the Tracer records them and may
// tell steps of its own: a verdict on what it read (a stall, a change
// missed) or what it adds to a step (an event's diff). Each step is handed
// to every analysis, in the order of Options.Analyses, before any sink gets
// it; the steps an analysis tells are handed to them all too, its own
// included, so an analysis ignores the kinds it tells.
//
// Analyses read the steps in the order things happen, which is not always
// the order the sinks are told them: a watch's reads and events come as
// they are read, while the sinks get them once the reflector applies each
// event (see Tracer). A verdict is told back in the trace's order: after
// the step it was reached at (Record.After), ahead of it (Record.Before), or
// for a verdict that time alone brings, through Tracer.Judge.
//
// Recorded is called under the Tracer's lock, never concurrently: it must
// not call the Tracer, and what it keeps needs no lock of its own when only
// Recorded and Judge touch it.
type Analysis interface {
	Recorded(rec *Record)
}

// A Runner is an Analysis that also judges on a clock of its own (the stall
// check). New starts it, before the first step; Close stops it, without the
// Tracer's lock and before the last steps are told: Stop waits for whatever
// Start began, and may be called twice.
type Runner interface {
	Analysis
	Start(t *Tracer)
	Stop()
}

// Record is one step as it is recorded, with what an analysis may need of
// it that the step does not carry. The step is told once every analysis has
// read it; until then an analysis may fill in its details (Event.Diff).
type Record struct {
	Step *Step
	// Now is the Tracer's clock when the step happened.
	Now time.Time
	// Request is the request the step belongs to, as it was told (nil for a
	// step of no request, and for an HTTP/2 frame).
	Request *Request
	// Body is what a read brought (KindRead), Object the object of an event
	// in JSON (KindEvent; nil when the event has none): valid only during
	// the call, since they share memory the client reuses. A sink never
	// sees them, and the JSON trace never writes them.
	Body, Object []byte
	// Relist is what the store of podwatch's own reflector held and what
	// replaces it, on the replace decision (nil when no analysis is set).
	Relist *Relist

	t             *Tracer
	before, after []Step
}

// Before tells s just ahead of the step: what the step reveals that
// happened first (a proxied client's relist, shown by its request). The
// analyses after this one read s before the step.
func (r *Record) Before(s Step) {
	r.before = append(r.before, r.t.dispatchLocked(&Record{Step: &s, Now: r.Now, t: r.t})...)
}

// After tells s just behind the step, once every analysis has read the
// step: a verdict the step brings (a change missed, found when a relist's
// new state has all come).
func (r *Record) After(s Step) { r.after = append(r.after, s) }

// Relist is a client's store replaced in one step: what it held, up to the
// resourceVersion it had reached, and the state that replaces it. The gap
// audit compares the two.
type Relist struct {
	// Client is the proxied client relisting, empty for podwatch's own.
	Client string
	Held   []ObjectVersion
	// From is the resourceVersion the client had reached ("": none known,
	// the newest in Held then stands for it).
	From string
	// State is the new state, at resourceVersion To.
	State []ObjectVersion
	To    string
}

// ObjectVersion is one object as a state holds it.
type ObjectVersion struct {
	Namespace, Name, UID, ResourceVersion string
}

// NewerRV says whether a is a later resourceVersion than b, as the
// analyses order them. Versions that do not read as the integers the API
// documents them to be cannot be ordered: any difference then counts as
// newer, since the client did not see that version either.
func NewerRV(a, b string) bool {
	c, err := meta.CompareResourceVersions(a, b)
	if err != nil {
		return a != b
	}
	return c > 0
}

// dispatchLocked hands rec to every analysis and returns the steps it
// comes to: those told ahead of it, its own, those told after it (each of
// those handed to the analyses in turn).
func (t *Tracer) dispatchLocked(rec *Record) []Step {
	rec.t = t
	if rec.Step.Client == "" && rec.Step.Req != 0 {
		rec.Step.Client = t.clients[rec.Step.Req]
	}
	for _, a := range t.analyses {
		a.Recorded(rec)
	}
	out := append(slices.Clip(rec.before), *rec.Step)
	for i := range rec.after {
		out = append(out, t.dispatchLocked(&Record{Step: &rec.after[i], Now: rec.Now})...)
	}
	return out
}

// recordLocked records what rec holds, stamped with its time, and tells the
// steps it comes to now, or holds them with r's when r is held back.
func (t *Tracer) recordLocked(r *reqState, rec Record) {
	if t.closed {
		return
	}
	if r != nil {
		rec.Request = r.req
	}
	for _, s := range t.dispatchLocked(&rec) {
		s.At = rec.Now.Sub(t.start)
		t.holdLocked(r, s)
	}
}

// Judge runs f with the time now, in the trace's order: no step is
// recorded or told while it runs. What f tells is a verdict that time
// brought on what came before it (a watch silent too long): told at once,
// after whatever of its request is held back that the reflector does not
// wait for (the reads of an unfinished event); behind an event the
// reflector has yet to apply, it waits its turn, so that the trace never
// tells a silence before bytes that came ahead of it. Judge does nothing
// once the Tracer is closed. f must not call the Tracer.
func (t *Tracer) Judge(f func(now time.Time, tell func(Step))) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	now := t.clock()
	f(now, func(s Step) {
		for _, v := range t.dispatchLocked(&Record{Step: &s, Now: now}) {
			v.At = now.Sub(t.start)
			t.verdictLocked(v)
		}
	})
}

// verdictLocked tells s as Judge promises.
func (t *Tracer) verdictLocked(s Step) {
	i := slices.IndexFunc(t.held, func(r *reqState) bool { return r.n == s.Req })
	if s.Req == 0 || i < 0 {
		t.tellLocked(s)
		return
	}
	r := t.held[i]
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
