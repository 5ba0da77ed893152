package cache

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/watch"
)

// WatchListTimeoutError is a watch list whose initial-events-end bookmark
// did not come within ReflectorOptions.WatchListTimeout: a server, or a proxy
// in between, that never sends it would otherwise hold the sync for as long
// as the watch lasts.
type WatchListTimeoutError struct {
	Timeout time.Duration
	// Items counts the initial objects received before the wait ran out.
	Items int
}

func (e *WatchListTimeoutError) Error() string {
	return fmt.Sprintf("no initial-events-end bookmark within %v (%d objects streamed)", e.Timeout, e.Items)
}

// errEndedBeforeBookmark is a watch list the server ended before its initial
// state was complete: a server that ignores sendInitialEvents never sends the
// closing bookmark.
var errEndedBeforeBookmark = errors.New("stream ended before the initial-events-end bookmark")

// watchList syncs the store with a streaming watch list, then watches on the
// same stream. A watch list that fails for any reason (refused, cut, garbage,
// an oversized frame, a missing bookmark, a 410) is followed at once by a list
// for this round: a list is the older, plainer request, and it may well
// succeed where the stream did not; if it fails too, its own error is the one
// backed off from. The next sync tries a watch list again, unless the server
// said it has none (noStream).
func (r *Reflector[T]) watchList(ctx context.Context) state[T] {
	w, err := r.streamInitial(ctx)
	var pe *PhaseError
	switch {
	case err == nil:
		return state[T]{kind: stateWatch, w: w}
	case ctx.Err() != nil:
		return state[T]{kind: stateWatchList} // Run ends here
	case errors.As(err, &pe) && pe.Phase == PhaseStore:
		return r.failed(PhaseStore, err, true)
	case r.givesUp(err):
		// A list would meet the same end (an untrusted certificate, say).
		return r.failed(PhaseWatchList, err, true)
	}
	r.observe(Step{Kind: StepFallbackList, Fallback: r.fallbackCause(err), Err: err})
	return state[T]{kind: stateSync}
}

func (r *Reflector[T]) fallbackCause(err error) FallbackCause {
	var te *WatchListTimeoutError
	switch {
	case r.noStream:
		return FallbackUnsupported
	case errors.As(err, &te):
		return FallbackNoEndBookmark
	}
	return FallbackFailed
}

// streamInitial streams the initial state as ADDED events up to the bookmark
// that ends them, replaces the store with it, and returns the still-open
// watch. On failure it has stopped the watch; an answer meaning the server
// serves no watch lists sets noStream.
func (r *Reflector[T]) streamInitial(ctx context.Context) (watch.Interface[T], error) {
	rv, _ := r.listRV()
	r.observe(Step{Kind: StepWatchList, ResourceVersion: rv, Match: MatchNotOlderThan})
	// A guard, not a wait: on a virtual clock it must not pass at once.
	deadline := make(chan struct{})
	guard := timing.AfterFunc(r.clock, r.opts.WatchListTimeout, func() { close(deadline) })
	defer guard.Stop()
	w, err := r.lw.Watch(ctx, WatchOptions{
		ResourceVersion: rv, ResourceVersionMatch: MatchNotOlderThan,
		SendInitialEvents: true, AllowWatchBookmarks: true, TimeoutSeconds: r.watchTimeout(),
	})
	if err != nil {
		r.noStream = unsupported(err)
		return nil, r.phaseError(PhaseWatchList, err)
	}
	items, rv, err := r.initialEvents(ctx, w, deadline)
	if err == nil {
		err = r.replace(items, rv)
		if err != nil {
			err = r.phaseError(PhaseStore, err)
		}
	} else {
		err = r.phaseError(PhaseWatchList, err)
	}
	if err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// initialEvents gathers w's initial objects until the bookmark that ends
// them, and returns them with that bookmark's resourceVersion.
func (r *Reflector[T]) initialEvents(ctx context.Context, w watch.Interface[T], deadline <-chan struct{}) ([]T, string, error) {
	var items []T
	for {
		var ev watch.Event[T]
		ok := true
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-deadline:
			return nil, "", &WatchListTimeoutError{Timeout: r.opts.WatchListTimeout, Items: len(items)}
		case ev, ok = <-w.ResultChan():
		}
		switch {
		case !ok:
			return nil, "", errEndedBeforeBookmark
		case ev.Type == watch.Added:
			items = append(items, ev.Object)
		case ev.Type == watch.Bookmark && ev.Object.Meta().Annotations[InitialEventsEndAnnotation] == "true":
			return items, ev.Object.Meta().ResourceVersion, nil
		case ev.Type == watch.Bookmark:
			// Progress before the end of the initial events says nothing yet.
		case ev.Type == watch.Error:
			return nil, "", ev.Err
		default:
			return nil, "", fmt.Errorf("%s event before the initial state was complete", ev.Type)
		}
	}
}

func (r *Reflector[T]) phaseError(phase Phase, err error) *PhaseError {
	return &PhaseError{Phase: phase, Name: r.opts.Name, Err: err}
}

// unsupported reports an answer meaning "no watch lists here": a server from
// before them refuses sendInitialEvents as invalid (422), and one that cannot
// serve the request at all says so (405, 501). A 400 is not one: it is more
// likely about the request itself (a malformed selector), which a list is
// refused for too and should be reported as; client-go tries a watch list
// again at every sync whatever the answer. A 403 is not one either: it is
// about who asks, and an apiserver briefly denies everyone while its
// authorizer warms up after a restart.
func unsupported(err error) bool {
	se, ok := rest.AsStatusError(err)
	if !ok {
		return false
	}
	switch se.Status.Code {
	case http.StatusMethodNotAllowed, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return true
	}
	return false
}
