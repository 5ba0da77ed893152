package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// InitialEventsEndAnnotation marks the bookmark that ends a watch list's initial
// events.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// ReflectorOptions tune a Reflector; the zero value works.
type ReflectorOptions struct {
	// Name names the collection in errors ("list pods: ..."); default
	// "objects".
	Name string
	// WatchList gets the initial state as a streaming watch list
	// (sendInitialEvents) instead of a list. A watch list that fails, for
	// whatever reason, is followed at once by a list for that round; only an
	// answer that means the server has no watch lists turns them off for the
	// rest of the run.
	WatchList bool
	// WatchListTimeout bounds how long a watch list may take to deliver the
	// bookmark that ends its initial events; after it the stream is closed
	// and a list gets the state instead. Without it, a server (or a proxy)
	// that drops that bookmark would hold the first sync for as long as the
	// watch lasts. Default DefaultWatchListTimeout.
	WatchListTimeout time.Duration
	// PageSize, when positive, paginates lists with limit and continue.
	PageSize int64
	// MinWatchTimeout is the shortest timeoutSeconds a watch asks for; each watch
	// asks for a random value in [MinWatchTimeout, 2*MinWatchTimeout) so that
	// clients started together do not all reconnect together. Default 5m.
	MinWatchTimeout time.Duration
	Backoff         Backoff
	// Rand returns numbers in [0, 1) for jitter; default math/rand/v2.
	Rand func() float64
	// Observe, when set, is told of every step the reflector takes, on the
	// reflector's goroutine (tracing, tests). It must not block. Ending Run's
	// ctx from it takes effect before the next event is applied: a graceful
	// stop after the event just observed.
	Observe func(Step)
	// GiveUp, when set, is asked about each failure that comes before the
	// first sync (before the store was ever filled): when it answers true,
	// Run returns that failure instead of backing off and trying again. Once
	// the store has been synced it is never asked again: a running reflector
	// retries every failure, since the store it keeps is still worth
	// keeping up to date. A watch list failure it gives up on is not
	// followed by a list. rest.NeedsConfigChange is the usual ground: give
	// up only on what no retry can cure without a change of configuration
	// (an untrusted certificate, a missing file). Nil never gives up.
	GiveUp func(error) bool
}

// DefaultWatchListTimeout is the default ReflectorOptions.WatchListTimeout:
// ample for a watch cache to stream tens of thousands of objects, short
// enough that a lost bookmark costs minutes, not the watch's whole life.
const DefaultWatchListTimeout = 2 * time.Minute

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
// Its loop is a small state machine (see Run), each transition reported as
// Steps: sync (list every page, replace the store) or watch list (stream the
// initial state, replace the store at its closing bookmark, keep the stream
// open) lead to watch; a watch that the server ends cleanly leads to another
// watch from the last resourceVersion; any failure leads to backoff, which
// leads back to watch, or to a sync when the failure means the store can no
// longer be brought up to date by watching (a 410, a refused change).
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
	// clock is lw's (see clockOf): the reflector's backoffs are waits on
	// it (After), its deadline for a watch list's closing bookmark a guard
	// (timing.AfterFunc).
	clock timing.Clock

	delays   backoffState
	synced   bool // the store has been filled once
	noStream bool // the server does not serve watch lists: sync with lists

	mu sync.Mutex
	rv string
}

// NewReflector returns a reflector that fills store from lw.
func NewReflector[T meta.Object](lw ListerWatcher[T], store Store[T], opts ReflectorOptions) *Reflector[T] {
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.Name == "" {
		opts.Name = "objects"
	}
	if opts.WatchListTimeout <= 0 {
		opts.WatchListTimeout = DefaultWatchListTimeout
	}
	return &Reflector[T]{
		lw: lw, store: store, opts: opts, clock: clockOf(lw),
		delays: backoffState{cfg: opts.Backoff.withDefaults(), rand: opts.Rand},
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
	r.observe(Step{Kind: StepResourceVersion, ResourceVersion: rv})
}

func (r *Reflector[T]) observe(s Step) {
	if r.opts.Observe != nil {
		r.opts.Observe(s)
	}
}

// stateKind names where the reflector's loop stands.
type stateKind int

const (
	stateSync      stateKind = iota // get the whole state with a list
	stateWatchList                  // get the whole state with a streaming watch list
	stateWatch                      // watch for changes after the last resourceVersion
	stateBackoff                    // wait after a failure
)

// state is the reflector's loop between two transitions.
type state[T any] struct {
	kind stateKind
	// w is a watch already open in stateWatch: the one that carried a
	// watch list's initial state. Nil opens a new one.
	w watch.Interface[T]
	// err is the failure a backoff waits after; resync says a sync must
	// follow the wait, rather than a watch.
	err    error
	resync bool
}

// Run runs the loop (see Reflector) until ctx ends, backing off after each
// failure (honouring a server's Retry-After). It returns nil once ctx is done, or, before the
// first sync, a failure ReflectorOptions.GiveUp chose to give up on; either
// way only once every request it made has been closed.
func (r *Reflector[T]) Run(ctx context.Context) (err error) {
	defer func() { r.observe(Step{Kind: StepStopped, Err: err}) }()
	s := r.syncState()
	for ctx.Err() == nil {
		if s.kind == stateBackoff && r.givesUp(s.err) {
			return s.err
		}
		s = r.step(ctx, s)
	}
	if s.w != nil {
		s.w.Stop()
	}
	return nil
}

// givesUp reports a failure before the first sync that GiveUp gives up on.
func (r *Reflector[T]) givesUp(err error) bool {
	return !r.synced && r.opts.GiveUp != nil && r.opts.GiveUp(err)
}

// step makes one transition from s.
func (r *Reflector[T]) step(ctx context.Context, s state[T]) state[T] {
	switch s.kind {
	case stateSync:
		return r.list(ctx)
	case stateWatchList:
		return r.watchList(ctx)
	case stateWatch:
		return r.watch(ctx, s.w)
	default: // stateBackoff
		return r.backoff(ctx, s)
	}
}

// syncState is how the next sync gets the state: a watch list when asked
// for and the server serves them, a list otherwise.
func (r *Reflector[T]) syncState() state[T] {
	if r.opts.WatchList && !r.noStream {
		return state[T]{kind: stateWatchList}
	}
	return state[T]{kind: stateSync}
}

// failed is the backoff after err in phase.
func (r *Reflector[T]) failed(phase Phase, err error, resync bool) state[T] {
	var pe *PhaseError
	if !errors.As(err, &pe) {
		err = &PhaseError{Phase: phase, Name: r.opts.Name, Err: err}
	}
	return state[T]{kind: stateBackoff, err: err, resync: resync}
}

// backoff waits after a failure, then moves on to a sync or a watch.
func (r *Reflector[T]) backoff(ctx context.Context, s state[T]) state[T] {
	wait := r.delays.next(r.clock.Now())
	if ra := rest.RetryAfter(s.err); ra > wait {
		wait = ra
	}
	r.observe(Step{Kind: StepBackoff, Wait: wait, Err: s.err})
	select {
	case <-ctx.Done():
		return s
	case <-r.clock.After(wait):
	}
	if s.resync {
		return r.syncState()
	}
	return state[T]{kind: stateWatch}
}

// listRV chooses the resourceVersion of a sync: see the Reflector doc.
func (r *Reflector[T]) listRV() (rv, match string) {
	if last := r.LastSyncResourceVersion(); last != "" {
		return last, MatchNotOlderThan
	}
	return "", ""
}

// list syncs the store with a list (every page), then watches.
func (r *Reflector[T]) list(ctx context.Context) state[T] {
	rv, match := r.listRV()
	items, listRV, err := r.listPages(ctx, rv, match)
	if rest.IsGone(err) && rv != "" {
		// The server cannot serve a state from that version on; the most recent
		// state is newer than anything applied, so it is safe.
		r.observe(Step{Kind: StepRelist, Cause: RelistTooOld, ResourceVersion: rv, Err: err})
		items, listRV, err = r.listPages(ctx, "", "")
	}
	if err != nil {
		return r.failed(PhaseList, err, true)
	}
	if err := r.replace(items, listRV); err != nil {
		return r.failed(PhaseStore, err, true)
	}
	return state[T]{kind: stateWatch}
}

// replace fills the store with a synced state.
func (r *Reflector[T]) replace(items []T, rv string) error {
	if err := r.store.Replace(items, rv); err != nil {
		return err
	}
	r.synced = true
	r.observe(Step{Kind: StepReplace, ResourceVersion: rv, Items: len(items)})
	r.setRV(rv)
	return nil
}

// listPages lists every page and returns the items and the list's resourceVersion.
func (r *Reflector[T]) listPages(ctx context.Context, rv, match string) ([]T, string, error) {
	opts := ListOptions{ResourceVersion: rv, ResourceVersionMatch: match, Limit: r.opts.PageSize}
	var items []T
	for page := 1; ; page++ {
		r.observe(Step{Kind: StepList, ResourceVersion: opts.ResourceVersion, Match: opts.ResourceVersionMatch, Page: page})
		list, err := r.lw.List(ctx, opts)
		if err != nil && opts.Continue != "" && rest.IsGone(err) {
			return r.listWhole(ctx, rv, match, err)
		}
		if err != nil {
			return nil, "", err
		}
		items = append(items, list.Items...)
		if list.Metadata.Continue == "" || opts.Limit <= 0 {
			return items, list.Metadata.ResourceVersion, nil
		}
		// A continued page is pinned to the first page's snapshot by its token;
		// the API forbids resourceVersion beside continue.
		opts = ListOptions{Limit: opts.Limit, Continue: list.Metadata.Continue}
	}
}

// listWhole lists in one page, without limit: the answer to a continue token
// that expired (410) because the first page's snapshot was compacted away. A
// new paginated list would take as long and could expire again, and again on
// a busy server; a list without limit is served whole from one snapshot.
func (r *Reflector[T]) listWhole(ctx context.Context, rv, match string, expired error) ([]T, string, error) {
	r.observe(Step{Kind: StepRelist, Cause: RelistPageExpired, Err: expired})
	r.observe(Step{Kind: StepList, ResourceVersion: rv, Match: match, Page: 1})
	list, err := r.lw.List(ctx, ListOptions{ResourceVersion: rv, ResourceVersionMatch: match})
	if err != nil {
		return nil, "", err
	}
	return list.Items, list.Metadata.ResourceVersion, nil
}

func (r *Reflector[T]) watchTimeout() int64 {
	min := r.opts.MinWatchTimeout
	return int64((min + time.Duration(r.opts.Rand()*float64(min))) / time.Second)
}

// watch applies the events of w, or of a new watch from the last
// resourceVersion when w is nil, until it ends. A clean end leads to the next
// watch; a failure to a backoff.
func (r *Reflector[T]) watch(ctx context.Context, w watch.Interface[T]) state[T] {
	if w == nil {
		rv := r.LastSyncResourceVersion()
		r.observe(Step{Kind: StepWatch, ResourceVersion: rv})
		var err error
		w, err = r.lw.Watch(ctx, WatchOptions{ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: r.watchTimeout()})
		if err != nil {
			return r.watchFailed(err)
		}
	}
	started := r.clock.Now()
	events, err := r.apply(ctx, w)
	w.Stop()
	if err != nil {
		return r.watchFailed(err)
	}
	if events == 0 && r.clock.Now().Sub(started) < minHealthyWatch {
		return r.failed(PhaseWatch, errWatchEndedAtOnce, false)
	}
	r.observe(Step{Kind: StepWatchEnded, ResourceVersion: r.LastSyncResourceVersion(), Items: events})
	return state[T]{kind: stateWatch}
}

// watchFailed decides what a watch failure means for the next round: a
// relist when watching can no longer bring the store up to date.
func (r *Reflector[T]) watchFailed(err error) state[T] {
	var stale *StaleError
	switch {
	case rest.IsGone(err):
		r.observe(Step{Kind: StepRelist, Cause: RelistGone, ResourceVersion: r.LastSyncResourceVersion(), Err: err})
		return r.failed(PhaseWatch, err, true)
	case errors.As(err, &stale):
		r.observe(Step{Kind: StepRelist, Cause: RelistRefused, Err: err})
		return r.failed(PhaseWatch, err, true)
	}
	return r.failed(PhaseWatch, err, false)
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
			return n, r.phaseError(PhaseStore, serr)
		}
		n++
		r.observe(Step{Kind: StepEvent, Event: ev.Type, ResourceVersion: ev.Object.Meta().ResourceVersion})
		r.setRV(ev.Object.Meta().ResourceVersion)
	}
}

// next waits for w's next event or ctx's end; ok is false when w closed. Once
// ctx has ended it hands out no further event: a caller that ends ctx while
// it handles one (a graceful stop, from an Observe hook) gets that one
// applied and no other.
func next[T any](ctx context.Context, w watch.Interface[T]) (ev watch.Event[T], ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return ev, false, err
	}
	select {
	case <-ctx.Done():
		return ev, false, ctx.Err()
	case ev, ok = <-w.ResultChan():
		return ev, ok, nil
	}
}
