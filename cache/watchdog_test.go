package cache

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// closeRecorder is a body whose Close is seen by the test.
type closeRecorder struct {
	io.Reader
	closed chan struct{}
	once   sync.Once
}

func (c *closeRecorder) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func TestWatchdogBodyEndsASilentRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	b := newWatchdogBody(pr, "/api/v1/pods?watch=true", 10*time.Millisecond, nil)
	defer b.Close()
	got := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 8))
		got <- err
	}()
	select {
	case err := <-got:
		var se *StallError
		if !errors.As(err, &se) {
			t.Fatalf("got %v (%T), want a *StallError", err, err)
		}
		if se.Where != "/api/v1/pods?watch=true" || se.Silence != 10*time.Millisecond {
			t.Fatalf("got %+v, want the URL and a 10ms silence", se)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Read still blocked on a silent body")
	}
	if _, err := b.Read(make([]byte, 8)); !errors.As(err, new(*StallError)) {
		t.Fatalf("second Read: got %v, want a *StallError again", err)
	}
}

func TestWatchdogBodyCloseStopsTheTimer(t *testing.T) {
	tests := []struct {
		name      string
		readAfter bool // a Read that returns bytes after Close must not revive the timer
	}{
		{"close", false},
		{"read after close", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &closeRecorder{Reader: strings.NewReader("data"), closed: make(chan struct{})}
			b := newWatchdogBody(body, "w", time.Hour, nil)
			if err := b.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case <-body.closed:
			default:
				t.Fatalf("Close did not close the body")
			}
			if tt.readAfter {
				if n, err := b.Read(make([]byte, 4)); n != 4 || err != nil {
					t.Fatalf("Read: got %d, %v, want 4, nil", n, err)
				}
			}
			if b.timer.Stop() {
				t.Fatalf("the watchdog timer is still running after Close")
			}
			if err := b.Close(); err != nil {
				t.Fatalf("second Close: got %v, want nil", err)
			}
		})
	}
}

// reflectUntil runs a reflector over lw until pushes at every rv in want have
// arrived (or a deadline passes), then stops it; it returns the steps seen.
// opts.Observe, when set, is also told of each step.
func reflectUntil(t *testing.T, lw *ListWatch[*api.Pod], opts ReflectorOptions, rvs ...string) []Step {
	t.Helper()
	var mu sync.Mutex
	var steps []Step
	seen := map[string]bool{}
	reached := make(chan struct{})
	var once sync.Once
	store := NewUndeltaStore(func(items []*api.Pod, at string) {
		mu.Lock()
		defer mu.Unlock()
		seen[at] = true
		for _, rv := range rvs {
			if !seen[rv] {
				return
			}
		}
		once.Do(func() { close(reached) })
	}, MetaNamespaceKey[*api.Pod])
	opts.Backoff = Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond}
	observe := opts.Observe
	opts.Observe = func(s Step) {
		mu.Lock()
		steps = append(steps, s)
		mu.Unlock()
		if observe != nil {
			observe(s)
		}
	}
	r := NewReflector[*api.Pod](lw, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	select {
	case <-reached:
	case <-time.After(30 * time.Second):
		mu.Lock()
		t.Errorf("no pushes at %q; saw %v; steps %+v", rvs, seen, steps)
		mu.Unlock()
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return after cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]Step(nil), steps...)
}

// stepErr returns the first step whose Err is an E.
func stepErr[E error](steps []Step) (E, bool) {
	var e E
	for _, s := range steps {
		if s.Err != nil && errors.As(s.Err, &e) {
			return e, true
		}
	}
	return e, false
}

func TestWatchdogResumesASilentHTTP1Watch(t *testing.T) {
	a1, b2, c3 := realPodJSON(t, "a", "1"), realPodJSON(t, "b", "2"), realPodJSON(t, "c", "3")
	srv := newScriptServer(t,
		answer(200, listBody("1", a1)),
		// One event, then silence on an open connection: a peer gone dead.
		func(w http.ResponseWriter, r *http.Request) {
			chunks(false, event("ADDED", b2))(w, r)
			<-r.Context().Done()
		},
		chunks(false, event("ADDED", c3)),
	)
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
	lw.StallGrace = 100 * time.Millisecond
	steps := reflectUntil(t, lw, ReflectorOptions{MinWatchTimeout: time.Second}, "2", "3")
	se, ok := stepErr[*StallError](steps)
	if !ok {
		t.Fatalf("no step carries a *StallError; steps %+v", steps)
	}
	if !strings.Contains(se.Where, "watch=true") {
		t.Fatalf("StallError.Where %q does not name the watch URL", se.Where)
	}
	uris := srv.uris()
	if len(uris) < 3 || !strings.Contains(uris[2], "resourceVersion=2") {
		t.Fatalf("requests %q: want the third a watch resumed from resourceVersion 2", uris)
	}
}

// A list whose server sends headers and part of the body, then nothing, must
// not hold the reflector forever: the list watchdog ends it, the reflector
// backs off and lists again.
func TestWatchdogEndsASilentList(t *testing.T) {
	a1, b2 := realPodJSON(t, "a", "1"), realPodJSON(t, "b", "2")
	body := listBody("1", a1)
	srv := newScriptServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body[:len(body)/2]))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
		answer(200, listBody("1", a1)),
		chunks(false, event("ADDED", b2)),
	)
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(c, "pods", "", "", api.Codec)
	// Long enough that the good list, read on a loaded machine, never trips it.
	lw.ListStall = time.Second
	steps := reflectUntil(t, lw, ReflectorOptions{MinWatchTimeout: time.Second}, "1", "2")
	se, ok := stepErr[*StallError](steps)
	if !ok {
		t.Fatalf("no step carries a *StallError; steps %+v", steps)
	}
	if !se.List || strings.Contains(se.Where, "watch=true") || !strings.HasPrefix(se.Error(), "GET ") || !strings.Contains(se.Error(), "the list's body") {
		t.Fatalf("StallError %+v (%q) does not name the list", se, se)
	}
}
