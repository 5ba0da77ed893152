package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// InitialEventsEndAnnotation marks the bookmark that ends a watch list's initial
// events.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// ReflectorOptions tune a Reflector; the zero value works.
type ReflectorOptions struct {
	// Name appears in errors ("pods").
	Name string
	// WatchList gets the initial state as a streaming watch list
	// (sendInitialEvents) instead of a list, falling back to a list when the
	// server does not support it.
	WatchList bool
	// PageSize, when positive, paginates lists with limit and continue.
	PageSize int64
	// MinWatchTimeout is the shortest timeoutSeconds a watch asks for; each watch
	// asks for a random value in [MinWatchTimeout, 2*MinWatchTimeout) so that
	// clients started together do not all reconnect together. Default 5m.
	MinWatchTimeout time.Duration
	Backoff         Backoff
	// Clock drives waits; tests inject one. Default: the real clock.
	Clock Clock
	// Rand returns numbers in [0, 1) for jitter; default math/rand/v2.
	Rand func() float64
	// Observe, when set, is told of every step the reflector takes, on the
	// reflector's goroutine (tracing, tests). It must not block.
	Observe func(Step)
}

// Clock is the time source of a Reflector.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives after d.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// StepKind names a reflector step.
type StepKind string

// The steps a Reflector reports.
const (
	StepList         StepKind = "list"          // a list request (one page)
	StepReplace      StepKind = "replace"       // the store was replaced with a listed state
	StepWatch        StepKind = "watch"         // a watch request
	StepWatchList    StepKind = "watch-list"    // a streaming watch list request
	StepWatchEnded   StepKind = "watch-ended"   // the server ended a watch cleanly; resume
	StepRelist       StepKind = "relist"        // the next sync lists again, and why
	StepFallbackList StepKind = "fallback-list" // the server does not do watch lists
	StepBackoff      StepKind = "backoff"       // waiting after a failure
	StepEvent        StepKind = "event"         // a watch event was applied
	StepResourceVsn  StepKind = "resource-version"
	StepStopped      StepKind = "stopped"
)

// Step is one thing the reflector did.
type Step struct {
	Kind            StepKind
	ResourceVersion string
	Reason          string
	Wait            time.Duration
	Items           int
	Event           watch.EventType
	Err             error
}

// PhaseError is a failure in one phase of the loop: "list", "watch-list", "watch"
// or "store".
type PhaseError struct {
	Phase string
	Err   error
}

func (e *PhaseError) Error() string { return e.Phase + ": " + e.Err.Error() }
func (e *PhaseError) Unwrap() error { return e.Err }

// errWatchEndedAtOnce is a watch the server closed at once without an event: a
// failure (to be backed off from), never a reason to reconnect in a busy loop.
var errWatchEndedAtOnce = errors.New("watch ended at once without an event")

// minHealthyWatch is how long a watch without events must last to count as a
// clean end rather than a failure.
const minHealthyWatch = time.Second

// Reflector keeps a Store in step with a collection on the server: it lists (or
// streams a watch list), replaces the store, then watches from the listed
// resourceVersion and applies each event.
//
// The resourceVersion contract it keeps: the first sync asks for the most recent
// state (resourceVersion unset: a consistent read). A relist asks for a state not
// older than the last one it applied (resourceVersionMatch=NotOlderThan at that
// version), so the store never moves back in time; if the server cannot serve that
// (410), it asks for the most recent state, which is newer still. It never lists
// with resourceVersion "0", which may be served from a stale cache.
type Reflector[T meta.Object] struct {
	lw    ListerWatcher[T]
	store Store[T]
	opts  ReflectorOptions

	backoff  backoffState
	relist   bool // the next ListAndWatch lists before watching
	noStream bool // the server does not serve watch lists

	mu sync.Mutex
	rv string
}

// NewReflector returns a reflector that fills store from lw.
func NewReflector[T meta.Object](lw ListerWatcher[T], store Store[T], opts ReflectorOptions) *Reflector[T] {
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.Name == "" {
		opts.Name = "objects"
	}
	return &Reflector[T]{
		lw: lw, store: store, opts: opts, relist: true,
		backoff: backoffState{cfg: opts.Backoff.withDefaults(), rand: opts.Rand},
	}
}

// LastSyncResourceVersion is the resourceVersion of the last list, event or
// bookmark applied; safe to call at any time.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rv
}

func (r *Reflector[T]) setRV(rv string) {
	if rv == "" {
		return
	}
	r.mu.Lock()
	r.rv = rv
	r.mu.Unlock()
	r.observe(Step{Kind: StepResourceVsn, ResourceVersion: rv})
}

func (r *Reflector[T]) observe(s Step) {
	if r.opts.Observe != nil {
		r.opts.Observe(s)
	}
}

// Run calls ListAndWatch until ctx ends, backing off after each failure (honouring
// a server's Retry-After). It returns once ctx is done and every request it made
// has been closed.
func (r *Reflector[T]) Run(ctx context.Context) {
	defer r.observe(Step{Kind: StepStopped})
	for {
		err := r.ListAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := r.backoff.next(r.opts.Clock.Now())
		if ra := rest.RetryAfter(err); ra > wait {
			wait = ra
		}
		r.observe(Step{Kind: StepBackoff, Wait: wait, Err: err, Reason: err.Error()})
		select {
		case <-ctx.Done():
			return
		case <-r.opts.Clock.After(wait):
		}
	}
}

// ListAndWatch syncs the store when it needs it (first run, or after a 410 or a
// refused change), then watches until the watch fails. Clean ends of a watch (its
// timeout) resume from the last resourceVersion without a relist. It returns the
// failure that stopped it, or ctx's error.
func (r *Reflector[T]) ListAndWatch(ctx context.Context) error {
	var w watch.Interface[T]
	if r.relist {
		var err error
		if w, err = r.sync(ctx); err != nil {
			return err
		}
		r.relist = false
	}
	return r.watchLoop(ctx, w)
}

// sync brings the store to a server state; with a watch list it returns the
// watch that carried the state, still open.
func (r *Reflector[T]) sync(ctx context.Context) (watch.Interface[T], error) {
	if r.opts.WatchList && !r.noStream {
		w, fallback, err := r.watchList(ctx)
		if err == nil || !fallback {
			return w, err
		}
		r.observe(Step{Kind: StepFallbackList, Reason: err.Error(), Err: err})
	}
	return nil, r.list(ctx)
}

// listRV chooses the resourceVersion of a sync: see the Reflector doc.
func (r *Reflector[T]) listRV() (rv, match string) {
	if last := r.LastSyncResourceVersion(); last != "" {
		return last, MatchNotOlderThan
	}
	return "", ""
}

func (r *Reflector[T]) list(ctx context.Context) error {
	rv, match := r.listRV()
	items, listRV, err := r.listPages(ctx, rv, match)
	if rest.IsGone(err) && rv != "" {
		// The server cannot serve a state from that version on; the most recent
		// state is newer than anything applied, so it is safe.
		r.observe(Step{Kind: StepRelist, Reason: "list at " + rv + " is too old; listing the most recent state"})
		items, listRV, err = r.listPages(ctx, "", "")
	}
	if err != nil {
		return &PhaseError{Phase: "list", Err: err}
	}
	if err := r.store.Replace(items, listRV); err != nil {
		return &PhaseError{Phase: "store", Err: err}
	}
	r.observe(Step{Kind: StepReplace, ResourceVersion: listRV, Items: len(items)})
	r.setRV(listRV)
	return nil
}

// listPages lists every page and returns the items and the list's resourceVersion.
func (r *Reflector[T]) listPages(ctx context.Context, rv, match string) ([]T, string, error) {
	opts := ListOptions{ResourceVersion: rv, ResourceVersionMatch: match, Limit: r.opts.PageSize}
	var items []T
	for {
		r.observe(Step{Kind: StepList, ResourceVersion: opts.ResourceVersion, Reason: opts.ResourceVersionMatch})
		page, err := r.lw.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		items = append(items, page.Items...)
		if page.Metadata.Continue == "" || opts.Limit <= 0 {
			return items, page.Metadata.ResourceVersion, nil
		}
		// A continued page is pinned to the first page's snapshot by its token;
		// the API forbids resourceVersion beside continue.
		opts = ListOptions{Limit: opts.Limit, Continue: page.Metadata.Continue}
	}
}

// watchList streams the initial state as ADDED events up to the bookmark that ends
// them, replaces the store with it, and returns the still-open watch. fallback
// says a list should be tried at once instead: the server refused the request as
// one it does not serve (then never again: noStream), or the stream did not look
// like a watch list this time (a server ignoring sendInitialEvents, or one that
// shut down mid-way: only this round). A 410 is one of the latter: a server
// honouring NotOlderThan never sends it, while one ignoring sendInitialEvents
// watches from the version and sends it once that is compacted; retried as a
// watch list, it would come back forever, while a list copes with it.
func (r *Reflector[T]) watchList(ctx context.Context) (w watch.Interface[T], fallback bool, err error) {
	rv, _ := r.listRV()
	r.observe(Step{Kind: StepWatchList, ResourceVersion: rv})
	w, err = r.lw.Watch(ctx, WatchOptions{
		ResourceVersion: rv, ResourceVersionMatch: MatchNotOlderThan,
		SendInitialEvents: true, AllowWatchBookmarks: true, TimeoutSeconds: r.watchTimeout(),
	})
	if err != nil {
		r.noStream = unsupported(err)
		return nil, r.noStream || rest.IsGone(err), &PhaseError{Phase: "watch-list", Err: err}
	}
	var items []T
	for {
		ev, ok, err := next(ctx, w)
		if err != nil {
			w.Stop()
			return nil, false, &PhaseError{Phase: "watch-list", Err: err}
		}
		switch {
		case !ok:
			// Ended before the initial state was complete: a server that ignores
			// sendInitialEvents never sends the closing bookmark.
			return nil, true, &PhaseError{Phase: "watch-list", Err: errors.New("stream ended before the initial-events-end bookmark")}
		case ev.Type == watch.Added:
			items = append(items, ev.Object)
		case ev.Type == watch.Bookmark && ev.Object.Meta().Annotations[InitialEventsEndAnnotation] == "true":
			listRV := ev.Object.Meta().ResourceVersion
			if err := r.store.Replace(items, listRV); err != nil {
				w.Stop()
				return nil, false, &PhaseError{Phase: "store", Err: err}
			}
			r.observe(Step{Kind: StepReplace, ResourceVersion: listRV, Items: len(items)})
			r.setRV(listRV)
			return w, false, nil
		case ev.Type == watch.Bookmark:
			// Progress before the end of the initial events says nothing yet.
		case ev.Type == watch.Error:
			w.Stop()
			return nil, rest.IsGone(ev.Err), &PhaseError{Phase: "watch-list", Err: ev.Err}
		default:
			w.Stop()
			return nil, true, &PhaseError{Phase: "watch-list", Err: fmt.Errorf("%s event before the initial state was complete", ev.Type)}
		}
	}
}

// unsupported reports a server answer meaning "no watch lists here". A 403 is not
// one: it is about who asks, and an apiserver briefly denies everyone while its
// authorizer warms up after a restart.
func unsupported(err error) bool {
	se, ok := rest.AsStatusError(err)
	if !ok {
		return false
	}
	switch se.Status.Code {
	case http.StatusBadRequest, http.StatusMethodNotAllowed,
		http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return true
	}
	return false
}

func (r *Reflector[T]) watchTimeout() int64 {
	min := r.opts.MinWatchTimeout
	return int64((min + time.Duration(r.opts.Rand()*float64(min))) / time.Second)
}

// watchLoop applies events from w (or from new watches when w is nil or ends
// cleanly) until a watch fails.
func (r *Reflector[T]) watchLoop(ctx context.Context, w watch.Interface[T]) error {
	for {
		if w == nil {
			rv := r.LastSyncResourceVersion()
			r.observe(Step{Kind: StepWatch, ResourceVersion: rv})
			var err error
			w, err = r.lw.Watch(ctx, WatchOptions{ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: r.watchTimeout()})
			if err != nil {
				return r.watchFailed(err)
			}
		}
		started := r.opts.Clock.Now()
		events, err := r.apply(ctx, w)
		w.Stop()
		w = nil
		if err != nil {
			return r.watchFailed(err)
		}
		if events == 0 && r.opts.Clock.Now().Sub(started) < minHealthyWatch {
			return &PhaseError{Phase: "watch", Err: errWatchEndedAtOnce}
		}
		r.observe(Step{Kind: StepWatchEnded, ResourceVersion: r.LastSyncResourceVersion(), Items: events})
	}
}

// watchFailed decides what a watch failure means for the next round.
func (r *Reflector[T]) watchFailed(err error) error {
	var stale *StaleError
	switch {
	case rest.IsGone(err):
		r.relist = true
		r.observe(Step{Kind: StepRelist, Reason: "resourceVersion " + r.LastSyncResourceVersion() + " is too old (410)", Err: err})
	case errors.As(err, &stale):
		r.relist = true
		r.observe(Step{Kind: StepRelist, Reason: "the store refused a change", Err: err})
	}
	var pe *PhaseError
	if errors.As(err, &pe) {
		return err
	}
	return &PhaseError{Phase: "watch", Err: err}
}

// apply applies w's events to the store until w ends; it returns how many it
// applied and the failure that ended w, nil for a clean end.
func (r *Reflector[T]) apply(ctx context.Context, w watch.Interface[T]) (int, error) {
	n := 0
	for {
		ev, ok, err := next(ctx, w)
		if err != nil || !ok {
			return n, err
		}
		var serr error
		switch ev.Type {
		case watch.Added:
			serr = r.store.Add(ev.Object)
		case watch.Modified:
			serr = r.store.Update(ev.Object)
		case watch.Deleted:
			serr = r.store.Delete(ev.Object)
		case watch.Bookmark:
		case watch.Error:
			return n, ev.Err
		default:
			return n, fmt.Errorf("unexpected %q event", ev.Type)
		}
		if serr != nil {
			return n, &PhaseError{Phase: "store", Err: serr}
		}
		n++
		r.observe(Step{Kind: StepEvent, Event: ev.Type, ResourceVersion: ev.Object.Meta().ResourceVersion})
		r.setRV(ev.Object.Meta().ResourceVersion)
	}
}

// next waits for w's next event or ctx's end; ok is false when w closed.
func next[T any](ctx context.Context, w watch.Interface[T]) (ev watch.Event[T], ok bool, err error) {
	select {
	case <-ctx.Done():
		return ev, false, ctx.Err()
	case ev, ok = <-w.ResultChan():
		return ev, ok, nil
	}
}
