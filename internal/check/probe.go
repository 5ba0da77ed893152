package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// env is what the checks of one run share: the clients, the options, the
// throwaway pods and the 429s seen.
type env struct {
	opts  Options
	json  *rest.Client
	proto *rest.Client
	cbor  *rest.Client
	pods  *throwaway // nil unless Options.Write

	mu      sync.Mutex
	tooMany []Exchange

	// The one watch list of the run (see watchList).
	wl    *watchListRun
	wlX   *Exchange
	wlErr error
}

func newEnv(opts Options) (*env, error) {
	e := &env{opts: opts}
	cfg := opts.Config
	cfg.MaxRetries = -1
	outer := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		rt = recorder{next: rt, mu: &e.mu, too: &e.tooMany}
		if outer != nil {
			rt = outer(rt)
		}
		return rt
	}
	var err error
	cfg.ContentType = wire.ContentTypeJSON
	if e.json, err = rest.NewClient(cfg); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	cfg.ContentType = wire.ContentTypeProtobuf
	if e.proto, err = rest.NewClient(cfg); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	cfg.ContentType = wire.ContentTypeCBOR
	if e.cbor, err = rest.NewClient(cfg); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	if opts.Write {
		e.pods = newThrowaway(e)
	}
	return e, nil
}

// close deletes the throwaway pods, on a context of its own: the run's may
// have ended, and they must go anyway. It returns a *CleanupError when
// some are left.
func (e *env) close() error {
	defer e.json.CloseIdleConnections()
	defer e.proto.CloseIdleConnections()
	defer e.cbor.CloseIdleConnections()
	if e.pods == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.pods.deleteAll(ctx); err != nil {
		return &CleanupError{Namespace: e.pods.ns, Err: err}
	}
	return nil
}

// CleanupError says that throwaway pods could not be deleted: they are
// left, named ThrowawayPrefix*, in Namespace.
type CleanupError struct {
	Namespace string
	Err       error
}

func (e *CleanupError) Error() string {
	return fmt.Sprintf("throwaway pods %s* left in namespace %s: %v", ThrowawayPrefix, e.Namespace, e.Err)
}

func (e *CleanupError) Unwrap() error { return e.Err }

// pods starts a request for the pods the run is about: its namespace, and
// its node's field selector.
func (e *env) podsRequest(c *rest.Client) *rest.Request {
	r := c.Get().Namespace(e.opts.Namespace).Resource("pods")
	if e.opts.Node != "" {
		r.FieldSelector(rest.OneTermEqualSelector("spec.nodeName", e.opts.Node))
	}
	return r
}

// listed is one list answer.
type listed struct {
	x    *Exchange
	list *rest.List[*api.Pod]
	err  error
}

// list sends a list of the run's pods, changed by mod, with c, and decodes it.
func (e *env) list(ctx context.Context, c *rest.Client, mod func(*rest.Request)) listed {
	r := e.podsRequest(c)
	if mod != nil {
		mod(r)
	}
	return doList(ctx, c, r)
}

func doList(ctx context.Context, c *rest.Client, r *rest.Request) listed {
	x := &Exchange{}
	resp, err := r.Stream(withExchange(ctx, x))
	if err != nil {
		return listed{x: x, err: err}
	}
	defer resp.Body.Close()
	l, err := rest.DecodeList(resp.Body, c.Format(), api.Codec, rest.ListLimits{})
	if err != nil {
		x.Error = "decode list: " + err.Error()
	}
	return listed{x: x, list: l, err: err}
}

// watched is a watch's events as they came, and how it ended.
type watched struct {
	x      *Exchange
	events []seen
	// ended is true when the server ended the body cleanly (io.EOF between
	// events) within the reading window; endErr is any other way reading
	// stopped (nil when the window closed first).
	ended  bool
	endErr error
	// endAt is when reading stopped, after the request was sent.
	endAt time.Duration
	err   error // the request's own failure (no 2xx answer)
}

// seen is one event with when it came.
type seen struct {
	ev watch.Event[*api.Pod]
	at time.Duration
}

// frame is the evidence's view of an event.
func (s seen) frame() *Frame {
	f := &Frame{Offset: s.ev.Offset, AtMS: float64(s.at.Microseconds()) / 1000, Type: string(s.ev.Type), Bytes: clip(s.ev.Raw, frameBytesLimit)}
	if s.ev.Object != nil {
		f.ResourceVersion = s.ev.Object.Metadata.ResourceVersion
	}
	return f
}

func (s seen) rv() string {
	if s.ev.Object == nil {
		return ""
	}
	return s.ev.Object.Metadata.ResourceVersion
}

// watchSpec is one watch a check opens.
type watchSpec struct {
	client *rest.Client // default the JSON one
	mod    func(*rest.Request)
	// window bounds reading, from the request: past it the watch is closed,
	// which is no failure of the server's (default timeoutSeconds + Grace).
	window time.Duration
	// until, when set, stops reading once it returns true for an event.
	until func(seen) bool
	// onOpen, when set, runs once the answer's headers are in (to cause a
	// change while the watch is open).
	onOpen func(ctx context.Context)
	// legacy asks by the /watch/ path prefix instead of ?watch=true.
	legacy bool
}

// watch opens a watch of the run's pods (with timeoutSeconds set to
// Options.WatchSeconds unless mod changes it) and reads its events until
// the server ends it, an event fails to decode, until says so, or the
// window closes.
func (e *env) watch(ctx context.Context, s watchSpec) watched {
	c := s.client
	if c == nil {
		c = e.json
	}
	window := s.window
	if window <= 0 {
		window = e.watchTimeout() + e.opts.Grace
	}
	r := e.podsRequest(c).TimeoutSeconds(e.opts.WatchSeconds)
	if s.legacy {
		r.Prefix("watch")
	} else {
		r.Watch(true)
	}
	if s.mod != nil {
		s.mod(r)
	}
	wctx, cancel := context.WithTimeout(ctx, window)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	x := &Exchange{}
	start := time.Now()
	resp, err := r.Stream(withExchange(wctx, x))
	if err != nil {
		return watched{x: x, err: err, endAt: time.Since(start)}
	}
	defer resp.Body.Close()
	if s.onOpen != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.onOpen(wctx)
		}()
	}
	dec := watch.NewDecoder(resp.Body, api.Codec, watch.DecoderOptions{KeepRaw: true, Format: c.Format()})
	w := watched{x: x}
	for {
		ev, err := dec.Decode()
		at := time.Since(start)
		if err != nil {
			w.endAt = at
			switch {
			case err == io.EOF:
				w.ended = true
				x.End = fmt.Sprintf("the server ended the body after %d events, %.1f s after the request", len(w.events), at.Seconds())
			case wctx.Err() != nil && ctx.Err() == nil:
				x.End = fmt.Sprintf("still open after %d events when the check stopped reading, %.1f s after the request", len(w.events), at.Seconds())
			default:
				w.endErr = err
				x.End = fmt.Sprintf("reading failed after %d events, %.1f s after the request: %v", len(w.events), at.Seconds(), err)
			}
			break
		}
		w.events = append(w.events, seen{ev: ev, at: at})
		if s.until != nil && s.until(w.events[len(w.events)-1]) {
			w.endAt = at
			x.End = fmt.Sprintf("the check stopped reading after %d events, %.1f s after the request", len(w.events), at.Seconds())
			break
		}
	}
	x.Events = len(w.events)
	return w
}

// at puts the event at index i in the exchange's evidence.
func (w watched) at(i int) *Exchange {
	x := *w.x
	if i >= 0 && i < len(w.events) {
		x.Frame = w.events[i].frame()
	}
	return &x
}

// consistentRV lists the run's pods with a consistent read and returns the
// list's resourceVersion, the starting point most checks need.
func (e *env) consistentRV(ctx context.Context) (string, listed, error) {
	l := e.list(ctx, e.json, nil)
	if l.err != nil {
		return "", l, l.err
	}
	if l.list.Metadata.ResourceVersion == "" {
		return "", l, errors.New("the list has no metadata.resourceVersion")
	}
	return l.list.Metadata.ResourceVersion, l, nil
}
