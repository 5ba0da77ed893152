package source

import (
	"context"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// APIOptions tune an API source; the zero value works.
type APIOptions struct {
	// Reflector tunes the list-then-watch loop: watch lists, paging, backoff,
	// an Observe hook for tracing. Name defaults to "pods".
	Reflector cache.ReflectorOptions
}

// API is the "api" source: the pods bound to one node, in every namespace,
// listed and watched with fieldSelector=spec.nodeName=NODE. A Reflector keeps an
// UndeltaStore in step with the server, and every change the store takes is sent
// on as a SET of all the node's pods, mirror pods included.
type API struct {
	client *rest.Client
	node   string
	opts   APIOptions
}

// NewAPI returns a source for nodeName's pods on the server c talks to.
func NewAPI(c *rest.Client, nodeName string, opts APIOptions) *API {
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = "pods"
	}
	return &API{client: c, node: nodeName, opts: opts}
}

// Run lists and watches until ctx ends, retrying failures with the reflector's
// backoff, and sends a SET on out after every change. The pods sent are shared
// with the store and must not be modified (PodConfig copies what it keeps). A
// send blocks until out takes it or ctx ends; meanwhile the watch is not read.
// Run returns once ctx has ended and the requests it made are closed.
func (a *API) Run(ctx context.Context, out chan<- podconfig.PodUpdate) {
	push := func(pods []*api.Pod, _ string) {
		select {
		case out <- podconfig.PodUpdate{Op: podconfig.SET, Pods: pods, Source: podconfig.SourceAPI}:
		case <-ctx.Done():
		}
	}
	lw := cache.NewListWatchFromClient(a.client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", a.node), api.DecodePod)
	store := cache.NewUndeltaStore(push, cache.MetaNamespaceKey[*api.Pod])
	cache.NewReflector(lw, store, a.opts.Reflector).Run(ctx)
}
