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

// wire wraps a pod source's transport: it notes each exchange, so that the
// test can check which format and which initial read (list or watch list)
// each side really used, and it cuts the source off when done ends.
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
}

func newWire(done context.Context) *wire { return &wire{done: done} }

// wrap has the shape of both clients' WrapTransport hooks.
func (w *wire) wrap(next http.RoundTripper) http.RoundTripper {
	w.next = next
	return w
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(w.done, cancel)
	release := func() {
		stop()
		cancel()
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

func (w *wire) all() []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.exchanges)
}

// releasingBody lets go of its request's context when closed.
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
