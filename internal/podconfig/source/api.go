package source

import (
	"context"
	"sync"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// APIOptions tune an API source; the zero value works.
type APIOptions struct {
	// Reflector tunes the list-then-watch loop: watch lists, paging, backoff,
	// an Observe hook, GiveUp. Name defaults to "pods".
	Reflector cache.ReflectorOptions
	// Instrument, when set, watches the source at work (internal/trace's
	// Instrument is one).
	Instrument Instrument
}

// Instrument watches an API source at work. Its methods are called on the
// source's goroutine and must not block.
type Instrument interface {
	// Observe is told of each reflector step, before the Reflector
	// options' own Observe.
	Observe(cache.Step)
	// WrapStore wraps the store the reflector fills, once, before Run
	// starts the reflector.
	WrapStore(cache.Store[*api.Pod]) cache.Store[*api.Pod]
	// Pushed is told of each push of the store (the pods and the
	// resourceVersion they are at) before it is sent on.
	Pushed(pods []*api.Pod, rv string)
}

// API is the "api" source: the pods its ListerWatcher lists and watches (for
// a kubelet, those bound to its node, in every namespace: see NewAPI). A
// Reflector keeps an UndeltaStore in step with the server, and every change
// the store takes is sent on as a SET of all the pods, mirror pods included.
//
// It stops in one of two ways. The end of Run's ctx stops everything at
// once, a send under way included. Stop is graceful: the reflector takes no
// further event, but the update of the event in hand is still sent (sends
// wait on Run's ctx only), so that a consumer that reads on sees it.
type API struct {
	lw   cache.ListerWatcher[*api.Pod]
	opts APIOptions

	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc // the running reflector's, nil outside Run
}

// NewAPI returns a source for nodeName's pods on the server c talks to:
// listed and watched with fieldSelector=spec.nodeName=NODE.
func NewAPI(c *rest.Client, nodeName string, opts APIOptions) *API {
	lw := cache.NewListWatchFromClient(c, "pods", "", rest.OneTermEqualSelector("spec.nodeName", nodeName), api.Codec)
	return NewAPIFrom(lw, opts)
}

// NewAPIFrom returns a source for the pods lw lists and watches: a ListWatch
// narrowed by namespace, labels or fields, or one of every node's pods.
func NewAPIFrom(lw cache.ListerWatcher[*api.Pod], opts APIOptions) *API {
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = "pods"
	}
	return &API{lw: lw, opts: opts}
}

// Run lists and watches until ctx ends or Stop is called, retrying failures
// with the reflector's backoff, and sends a SET on out after every change.
// The pods sent are shared with the store and must not be modified
// (PodConfig copies what it keeps). A send blocks until out takes it or ctx
// ends; meanwhile the watch is not read. Run returns once the reflector has
// returned and the requests it made are closed: nil, or the failure the
// Reflector options' GiveUp chose to give up on before the first sync. Run
// may be called once.
func (a *API) Run(ctx context.Context, out chan<- podconfig.PodUpdate) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if a.stopped {
		cancel()
	}
	a.cancel = cancel
	a.mu.Unlock()

	in := a.opts.Instrument
	push := func(pods []*api.Pod, rv string) {
		if in != nil {
			in.Pushed(pods, rv)
		}
		select {
		case out <- podconfig.PodUpdate{Op: podconfig.SET, Pods: pods, Source: podconfig.SourceAPI}:
		case <-ctx.Done():
		}
	}
	var store cache.Store[*api.Pod] = cache.NewUndeltaStore(push, cache.MetaNamespaceKey[*api.Pod])
	opts := a.opts.Reflector
	if in != nil {
		store = in.WrapStore(store)
		opts.Observe = both(in.Observe, opts.Observe)
	}
	return cache.NewReflector(a.lw, store, opts).Run(rctx)
}

// Stop stops Run gracefully: the reflector takes no event after the one in
// hand, whose update is still sent. Called from the reflector's goroutine
// (an Observe hook), it takes effect before the next event. Safe to call
// more than once, from any goroutine, before or during Run.
func (a *API) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	if a.cancel != nil {
		a.cancel()
	}
}

// both is first then second, either of which may be nil.
func both(first, second func(cache.Step)) func(cache.Step) {
	if second == nil {
		return first
	}
	return func(st cache.Step) {
		first(st)
		second(st)
	}
}
