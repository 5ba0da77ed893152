package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// ListOptions are the parameters of one list request.
type ListOptions struct {
	ResourceVersion      string
	ResourceVersionMatch string // "", "NotOlderThan" or "Exact"
	Limit                int64
	Continue             string
}

// WatchOptions are the parameters of one watch request.
type WatchOptions struct {
	ResourceVersion      string
	ResourceVersionMatch string
	TimeoutSeconds       int64
	AllowWatchBookmarks  bool
	SendInitialEvents    bool
}

// The resourceVersionMatch values.
const (
	MatchNotOlderThan = "NotOlderThan"
	MatchExact        = "Exact"
)

// ListerWatcher lists and watches one collection. Both calls block until the server
// answers (or ctx ends); the watch's events then arrive on its channel until it is
// stopped, ctx ends, or the server closes it.
type ListerWatcher[T any] interface {
	List(ctx context.Context, opts ListOptions) (*rest.List[T], error)
	Watch(ctx context.Context, opts WatchOptions) (watch.Interface[T], error)
}

// ListWatch lists and watches Resource in Namespace ("" for all namespaces) through
// a rest.Client, narrowed by FieldSelector and LabelSelector. Its errors name
// the request (method and URL); a Reflector adds the phase and the collection
// ("list pods: GET https://...: ...").
type ListWatch[T any] struct {
	Client        *rest.Client
	Resource      string
	Namespace     string
	FieldSelector string
	LabelSelector string
	// Codec decodes the objects of lists and watches, in the Client's
	// format (see meta.Codec).
	Codec meta.Codec[T]
	// LegacyWatchPath watches through /api/v1/watch/... instead of ?watch=true.
	LegacyWatchPath bool
	// Limits bound what one list item may cost.
	Limits rest.ListLimits
	// Decoder tunes the watch stream decoder (frame limit, raw bytes); its
	// Format is always the Client's.
	Decoder watch.DecoderOptions
	// StallGrace is how much longer than its timeoutSeconds a watch may go without
	// a byte before Watch's watchdog closes it with a *StallError: over HTTP/1.1
	// nothing else notices a dead connection. Zero means DefaultStallGrace;
	// negative turns the watchdog off. A watch without timeoutSeconds has none.
	StallGrace time.Duration
	// ListStall is how long a list body may go without a byte before List ends
	// it with a *StallError: nothing else bounds reading a list, and a server
	// that answers headers and then goes silent would hold it forever. Zero
	// means DefaultListStall; negative turns it off.
	ListStall time.Duration
}

// NewListWatchFromClient returns a ListWatch of resource in namespace filtered by
// fieldSelector, as a kubelet builds one for its pods.
func NewListWatchFromClient[T any](c *rest.Client, resource, namespace, fieldSelector string, codec meta.Codec[T]) *ListWatch[T] {
	return &ListWatch[T]{Client: c, Resource: resource, Namespace: namespace, FieldSelector: fieldSelector, Codec: codec}
}

func (lw *ListWatch[T]) request() *rest.Request {
	r := lw.Client.Get().Namespace(lw.Namespace).Resource(lw.Resource)
	if lw.FieldSelector != "" {
		r = r.FieldSelector(lw.FieldSelector)
	}
	if lw.LabelSelector != "" {
		r = r.LabelSelector(lw.LabelSelector)
	}
	return r
}

// List sends one list request and decodes the answer as it streams in.
func (lw *ListWatch[T]) List(ctx context.Context, opts ListOptions) (*rest.List[T], error) {
	r := lw.request()
	if opts.ResourceVersion != "" {
		r = r.ResourceVersion(opts.ResourceVersion)
	}
	if opts.ResourceVersionMatch != "" {
		r = r.ResourceVersionMatch(opts.ResourceVersionMatch)
	}
	if opts.Limit > 0 {
		r = r.Limit(opts.Limit)
	}
	if opts.Continue != "" {
		r = r.Continue(opts.Continue)
	}
	where := r.URL().String()
	resp, err := r.Stream(ctx)
	if err != nil {
		return nil, err // it names the request
	}
	body := resp.Body
	if stall := lw.listStall(); stall > 0 {
		wd := newWatchdogBody(body, where, stall, resthook.ClockOf(lw.Client))
		wd.list = true
		body = wd
	}
	defer body.Close()
	list, err := rest.DecodeList(body, lw.Client.Format(), lw.Codec, lw.Limits)
	if err != nil {
		return nil, namedBodyError(where, err)
	}
	return list, nil
}

// Watch opens a watch; its body is closed by the watcher's Stop. With
// opts.TimeoutSeconds set, a watch silent for longer than that plus StallGrace
// ends with an Error event whose Err is a *StallError.
func (lw *ListWatch[T]) Watch(ctx context.Context, opts WatchOptions) (watch.Interface[T], error) {
	r := lw.request()
	if lw.LegacyWatchPath {
		r = r.Prefix("watch")
	} else {
		r = r.Watch(true)
	}
	if opts.ResourceVersion != "" {
		r = r.ResourceVersion(opts.ResourceVersion)
	}
	if opts.ResourceVersionMatch != "" {
		r = r.ResourceVersionMatch(opts.ResourceVersionMatch)
	}
	if opts.TimeoutSeconds > 0 {
		r = r.TimeoutSeconds(opts.TimeoutSeconds)
	}
	if opts.AllowWatchBookmarks {
		r = r.AllowWatchBookmarks(true)
	}
	if opts.SendInitialEvents {
		r = r.SendInitialEvents(true)
	}
	where := r.URL().String()
	resp, err := r.Stream(ctx)
	if err != nil {
		return nil, err // it names the request
	}
	body := resp.Body
	if grace := lw.stallGrace(); opts.TimeoutSeconds > 0 && grace >= 0 {
		body = newWatchdogBody(body, where, time.Duration(opts.TimeoutSeconds)*time.Second+grace, resthook.ClockOf(lw.Client))
	}
	dopts := lw.Decoder
	dopts.Format = lw.Client.Format()
	d := watch.NewDecoder(body, lw.Codec, dopts)
	// The stream's failures and ERROR events name the request as rest's
	// own errors do, its method and URL: a warning then names every
	// request one way, whichever part of it failed.
	return watch.NewStreamWatcher(body, d, "GET "+where), nil
}

// namedBodyError names the request a failure reading its body belongs to,
// unless the failure names it already (a stall).
func namedBodyError(where string, err error) error {
	var stall *StallError
	if errors.As(err, &stall) {
		return err
	}
	return fmt.Errorf("GET %s: %w", where, err)
}

func (lw *ListWatch[T]) listStall() time.Duration {
	if lw.ListStall == 0 {
		return DefaultListStall
	}
	return lw.ListStall
}

func (lw *ListWatch[T]) stallGrace() time.Duration {
	if lw.StallGrace == 0 {
		return DefaultStallGrace
	}
	return lw.StallGrace
}

// clockOf is the clock a ListerWatcher runs on: a ListWatch's is its
// client's (a replay's, when it runs the client on its own time); one of
// podwatch's own that wraps another says which with a method Clock() of
// package timing's type, which no other program can name; any other runs
// on the wall clock.
func clockOf[T any](lw ListerWatcher[T]) timing.Clock {
	var c timing.Clock
	switch lw := lw.(type) {
	case *ListWatch[T]:
		c = resthook.ClockOf(lw.Client)
	case interface{ Clock() timing.Clock }:
		c = lw.Clock()
	}
	return timing.OrWall(c)
}
