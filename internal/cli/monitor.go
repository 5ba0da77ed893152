package cli

import (
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/apiwire"
)

// exchangeHeader tags each replayed request so that the bytes the fixture
// server writes for it can be matched with the bytes the client reads.
const exchangeHeader = "Podwatch-Replay-Exchange"

// replayMonitor tells when a replay is over: every recorded exchange has been
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
// it did not read is lost to the client anyway. A nil *replayMonitor never
// finishes.
type replayMonitor struct {
	mu       sync.Mutex
	played   bool
	next     int
	live     map[string]*exchangeState
	finished bool
	fin      chan struct{}
}

// exchangeState is one request, from its round trip to the end of its body.
type exchangeState struct {
	watch         bool // a watch, whose events reach the reflector one by one
	inflight      bool // waiting for headers
	inRead        bool // its body is blocked in Read
	written, read int64
}

func newReplayMonitor() *replayMonitor {
	return &replayMonitor{live: map[string]*exchangeState{}, fin: make(chan struct{})}
}

// Finished is closed when the replay is over.
func (m *replayMonitor) Finished() <-chan struct{} { return m.fin }

func (m *replayMonitor) setPlayed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.played = true
	m.checkLocked(false)
}

// step is told of the reflector's steps; it reports whether the replay is over.
func (m *replayMonitor) step(st cache.Step) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch st.Kind {
	case cache.StepList, cache.StepWatch, cache.StepWatchList, cache.StepBackoff, cache.StepWatchEnded:
		m.checkLocked(true)
	}
	return m.finished
}

func (m *replayMonitor) checkLocked(movedOn bool) {
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

// handler counts what the fixture server writes for each tagged request.
func (m *replayMonitor) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(exchangeHeader)
		next.ServeHTTP(&countingWriter{ResponseWriter: w, count: func(n int) { m.wrote(id, n) }}, r)
	})
}

func (m *replayMonitor) wrote(id string, n int) {
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

// layer tags the client's requests and follows their bodies.
func (m *replayMonitor) layer() layer {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
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
	m    *replayMonitor
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
