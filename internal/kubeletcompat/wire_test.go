package kubeletcompat

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// exchange is one request a pod source sent and the media type of its answer.
type exchange struct {
	Query     url.Values
	MediaType string // the answer's Content-Type without parameters; "" on failure
}

// initial reports whether the request read a whole state: a list, or a
// watch list (a watch with sendInitialEvents).
func (ex exchange) initial() bool {
	return ex.Query.Get("watch") != "true" || ex.Query.Get("sendInitialEvents") == "true"
}

// wire wraps a pod source's transport. It notes each exchange, so that the
// test can check which format and which reads each side really used. It
// can hold the source off the server for a while. And it cuts the source
// off for good when done ends.
//
// The cut-off is for the kubelet's source: it runs its reflector until the
// process exits (it is started with wait.NeverStop), so nothing can stop
// it. Once done ends, its requests under way are cancelled and new ones fail
// before reaching the server, so that it goes quiet; its reflector then
// retries with its backoff, off the wire, until the test binary exits.
type wire struct {
	next http.RoundTripper
	done context.Context

	mu        sync.Mutex
	exchanges []exchange
	held      chan struct{}               // closed on release; nil when not held
	open      map[*int]context.CancelFunc // the requests under way
}

func newWire(done context.Context) *wire {
	return &wire{done: done, open: map[*int]context.CancelFunc{}}
}

// wrap has the shape of both clients' WrapTransport hooks.
func (w *wire) wrap(next http.RoundTripper) http.RoundTripper {
	w.next = next
	return w
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(w.done, cancel)
	id, err := w.admit(ctx, cancel)
	release := func() {
		w.mu.Lock()
		delete(w.open, id)
		w.mu.Unlock()
		stop()
		cancel()
	}
	if err != nil {
		release()
		return nil, err
	}
	resp, err := w.next.RoundTrip(req.WithContext(ctx))
	ex := exchange{Query: req.URL.Query()}
	if err == nil {
		ex.MediaType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	}
	w.mu.Lock()
	w.exchanges = append(w.exchanges, ex)
	w.mu.Unlock()
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// admit waits while the wire is held, then registers a request under way
// so that a hold can cut it. The check and the registration are one step,
// so no request slips past a hold. Once done has ended nothing is admitted.
func (w *wire) admit(ctx context.Context, cancel context.CancelFunc) (*int, error) {
	for {
		if err := w.done.Err(); err != nil {
			return nil, err
		}
		w.mu.Lock()
		held := w.held
		if held == nil {
			id := new(int)
			w.open[id] = cancel
			w.mu.Unlock()
			return id, nil
		}
		w.mu.Unlock()
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// hold cancels the requests under way (a watch among them) and makes new
// ones wait until release: the source learns nothing of the server
// meanwhile, and a watch's events in flight are lost with its connection.
func (w *wire) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		w.held = make(chan struct{})
	}
	for _, cancel := range w.open {
		cancel()
	}
}

// release lets the requests held since hold go on.
func (w *wire) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held != nil {
		close(w.held)
		w.held = nil
	}
}

func (w *wire) all() []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.exchanges)
}

// releasingBody lets go of its request when closed.
type releasingBody struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
