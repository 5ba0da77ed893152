package replay

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cli/base"
)

// exchangeHeader tags each replayed request so that the bytes the fixture
// server writes for it can be matched with the bytes the client reads.
const exchangeHeader = "Podwatch-Replay-Exchange"

// Monitor tells when a replay is over: every recorded exchange has been
// played (the fixture server's Done) and the client has taken in all it was
// sent. The second half is what makes the output complete. It holds once no
// request waits for its headers, every open body has been read up to what the
// server wrote for it, and then either
//
//   - the reflector takes its next step (a new request, a backoff): it works
//     one request at a time, so every event before has been applied; or
//   - every open body is a watch blocked reading for more (held open): the
//     decoder never reads on while it holds a whole event, so every event has
//     been handed to the reflector. A list body blocked in Read proves
//     nothing: its items reach the reflector only when the body ends, so a
//     list waits for the reflector's next step.
//
// A body the client closed early (a decoding failure) no longer counts: what
// it did not read is lost to the client anyway. A nil *Monitor never
// finishes.
//
// It also tells the fixture server when the client has settled (Settle), so
// that an injected pause at --speed 0 can move the replay's clock without
// racing the client.
type Monitor struct {
	mu       sync.Mutex
	played   bool
	next     int
	live     map[string]*exchangeState
	finished bool
	fin      chan struct{}

	// finishing: the reflector has applied a watch event and has yet to
	// note its resourceVersion, the last of its steps for it.
	finishing bool
	// changed is closed, and cleared, when the state changes; made by a
	// Settle that waits for a change.
	changed chan struct{}
}

// exchangeState is one request, from its round trip to the end of its body.
type exchangeState struct {
	watch         bool // a watch, whose events reach the reflector one by one
	inflight      bool // waiting for headers
	inRead        bool // its body is blocked in Read
	written, read int64
	// decoded and applied count a watch's events: decoded by its watcher,
	// and finished by the reflector (applied, and every step of it told).
	decoded, applied int
}

// NewMonitor is the monitor of a replay about to begin.
func NewMonitor() *Monitor {
	return &Monitor{live: map[string]*exchangeState{}, fin: make(chan struct{})}
}

// Finished is closed when the replay is over.
func (m *Monitor) Finished() <-chan struct{} { return m.fin }

// SetPlayed tells the monitor that every recorded exchange has been played
// (the fixture server's Done).
func (m *Monitor) SetPlayed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.played = true
	m.checkLocked(false)
}

// Step is told of the reflector's steps; it reports whether the replay is over.
func (m *Monitor) Step(st cache.Step) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch st.Kind {
	case cache.StepList, cache.StepWatch, cache.StepWatchList, cache.StepBackoff, cache.StepWatchEnded:
		m.checkLocked(true)
	case cache.StepEvent:
		// The event's resourceVersion, when it has one, is noted next.
		m.finishing = st.ResourceVersion != ""
		if !m.finishing {
			m.eventFinishedLocked()
		}
	case cache.StepResourceVersion:
		if m.finishing {
			m.finishing = false
			m.eventFinishedLocked()
		}
	}
	return m.finished
}

// The reflector reads one body at a time: the events decoded and finished
// are those of the one open watch.
func (m *Monitor) watchLocked() *exchangeState {
	for _, ex := range m.live {
		if ex.watch && !ex.inflight {
			return ex
		}
	}
	return nil
}

// Decoded is told of each object the client decodes (a watch event's, or a
// list item's, which does not count).
func (m *Monitor) Decoded() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ex := m.watchLocked(); ex != nil {
		ex.decoded++
	}
}

func (m *Monitor) eventFinishedLocked() {
	if ex := m.watchLocked(); ex != nil && ex.applied < ex.decoded {
		ex.applied++
		m.notifyLocked()
	}
}

// Settle waits until the client has settled: it has taken in all the
// server wrote for r (and for any other open request) and acted on it, so
// that nothing it does next depends on time moving. That holds once no
// request waits for its headers, every open body has been read up to what
// the server wrote and is blocked reading for more (the trace and the
// decoder above read on the goroutine now blocked, so what came before is
// traced and decoded), and the reflector has finished every watch event
// decoded. The last is not implied by the rest: a watcher blocked reading
// has handed its events to the reflector, which may still be applying the
// last one, and its push and resourceVersion steps take the time of the
// moment they are told. It reports false when ctx ends first, or the client has left r,
// or the replay is over (the client is about to leave: a pause after the
// newest recorded state would only race its stop).
func (m *Monitor) Settle(ctx context.Context, r *http.Request) bool {
	id := r.Header.Get(exchangeHeader)
	for {
		m.mu.Lock()
		_, open := m.live[id]
		open = open && !m.finished
		settled := open && m.settledLocked()
		if !open || settled {
			m.mu.Unlock()
			return settled
		}
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

func (m *Monitor) settledLocked() bool {
	for _, ex := range m.live {
		if ex.inflight || ex.read != ex.written || !ex.inRead || ex.decoded != ex.applied {
			return false
		}
	}
	return true
}

// notifyLocked wakes whoever waits for a change.
func (m *Monitor) notifyLocked() {
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
}

func (m *Monitor) checkLocked(movedOn bool) {
	m.notifyLocked()
	if m.finished || !m.played {
		return
	}
	allWaiting := len(m.live) > 0
	for _, ex := range m.live {
		if ex.inflight || ex.read != ex.written {
			return
		}
		allWaiting = allWaiting && ex.watch && ex.inRead
	}
	if movedOn || allWaiting {
		m.finished = true
		close(m.fin)
	}
}

// Handler counts what the fixture server writes for each tagged request.
func (m *Monitor) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(exchangeHeader)
		next.ServeHTTP(&countingWriter{ResponseWriter: w, count: func(n int) { m.wrote(id, n) }}, r)
	})
}

func (m *Monitor) wrote(id string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ex, ok := m.live[id]; ok {
		ex.written += int64(n)
	}
}

// countingWriter counts body bytes and keeps Flush working.
type countingWriter struct {
	http.ResponseWriter
	count func(int)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.count(n)
	return n, err
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Layer tags the client's requests and follows their bodies.
func (m *Monitor) Layer() base.Layer {
	return func(next http.RoundTripper) http.RoundTripper {
		return base.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
			m.mu.Lock()
			m.next++
			id := strconv.Itoa(m.next)
			pods, _ := apiwire.ParsePods(req.URL.Path, req.URL.Query())
			ex := &exchangeState{inflight: true, watch: pods.Watch}
			m.live[id] = ex
			m.mu.Unlock()

			req = req.Clone(req.Context())
			req.Header.Set(exchangeHeader, id)
			resp, err := next.RoundTrip(req)

			m.mu.Lock()
			defer m.mu.Unlock()
			ex.inflight = false
			if err != nil || resp.Body == nil {
				delete(m.live, id)
			} else {
				resp.Body = &monitoredBody{body: resp.Body, m: m, id: id, ex: ex}
			}
			m.checkLocked(false)
			return resp, err
		})
	}
}

// monitoredBody tells its monitor what it read, when it is blocked in Read and
// when it ends.
type monitoredBody struct {
	body io.ReadCloser
	m    *Monitor
	id   string
	ex   *exchangeState // guarded by m.mu
}

func (b *monitoredBody) Read(p []byte) (int, error) {
	m := b.m
	m.mu.Lock()
	b.ex.inRead = true
	m.checkLocked(false)
	m.mu.Unlock()

	n, err := b.body.Read(p)

	m.mu.Lock()
	defer m.mu.Unlock()
	b.ex.inRead = false
	b.ex.read += int64(n)
	if err != nil {
		delete(m.live, b.id)
	}
	m.checkLocked(false)
	return n, err
}

func (b *monitoredBody) Close() error {
	b.m.mu.Lock()
	delete(b.m.live, b.id)
	b.m.checkLocked(false)
	b.m.mu.Unlock()
	return b.body.Close()
}
