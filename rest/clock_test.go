package rest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/timing"
)

// handClock is a Clock the test moves by hand: each After and each guard is
// noted, and passes only when the test fires it. It is a plain Clock unless
// timers is set, when it arms guards itself (a TimerClock).
type handClock struct {
	mu     sync.Mutex
	waits  []time.Duration
	afters []chan time.Time
	guards []*handGuard
}

type handGuard struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (c *handClock) Now() time.Time { return time.Time{} }

func (c *handClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waits = append(c.waits, d)
	c.afters = append(c.afters, ch)
	return ch
}

// pass ends the i-th wait asked.
func (c *handClock) pass(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.afters[i] <- time.Time{}
}

func (c *handClock) asked() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// timerClock is a handClock that arms guards itself.
type timerClock struct{ handClock }

func (c *timerClock) AfterFunc(d time.Duration, f func()) timing.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := &handGuard{d: d, f: f}
	c.guards = append(c.guards, g)
	return handTimer{c: c, g: g}
}

// fireGuard fires the first guard still armed of duration d, and reports
// whether there was one.
func (c *timerClock) fireGuard(d time.Duration) bool {
	c.mu.Lock()
	for _, g := range c.guards {
		if g.d == d && !g.stopped {
			g.stopped = true
			c.mu.Unlock()
			g.f()
			return true
		}
	}
	c.mu.Unlock()
	return false
}

type handTimer struct {
	c *timerClock
	g *handGuard
}

func (t handTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.g.stopped
	t.g.stopped = true
	return was
}

func (t handTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.g.stopped
	t.g.stopped, t.g.d = false, d
	return was
}

// onClock is cfg with the clock hook set, as a replay sets it.
func onClock(cfg Config, c timing.Clock) Config {
	resthook.On(&cfg).Clock = c
	return cfg
}

// TestRetryWaitsOnTheClock: the wait a 429's Retry-After asks for is asked
// of the clock hook, and the retry follows when that clock says it passed.
func TestRetryWaitsOnTheClock(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(`{}`))
	})
	clock := &timerClock{}
	c := mustClient(t, onClock(Config{Host: srv.URL}, clock))
	done := make(chan error, 1)
	go func() {
		_, err := c.Get().Resource("pods").Do(context.Background())
		done <- err
	}()
	deadline := time.After(waitTimeout)
	for len(clock.asked()) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Do returned %v before waiting", err)
		case <-deadline:
			t.Fatalf("no wait asked of the clock within %s", waitTimeout)
		case <-time.After(time.Millisecond):
		}
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second}, clock.asked()); diff != "" {
		t.Fatalf("waits asked (-want +got):\n%s", diff)
	}
	clock.pass(0)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Do after the retry: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("Do did not end within %s of the clock passing the wait", waitTimeout)
	}
}

// TestTimeoutsAreGuardsOnTheClock: Config.Timeout's wait for headers
// (Stream) and its bound on the whole call (Do) are guards on the clock hook:
// an hour's timeout ends the request as soon as the clock fires it.
func TestTimeoutsAreGuardsOnTheClock(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/hang-body" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	for _, tc := range []struct {
		name string
		call func(c *Client) error
	}{
		{"Stream, no headers", func(c *Client) error {
			_, err := c.Get().Resource("hang-headers").Stream(context.Background())
			return err
		}},
		{"Do, body never ends", func(c *Client) error {
			_, err := c.Get().Resource("hang-body").Do(context.Background())
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &timerClock{}
			c := mustClient(t, onClock(Config{Host: srv.URL, Timeout: time.Hour}, clock))
			done := make(chan error, 1)
			go func() { done <- tc.call(c) }()
			deadline := time.After(waitTimeout)
			for !clock.fireGuard(time.Hour) {
				select {
				case err := <-done:
					t.Fatalf("returned %v before its guard fired", err)
				case <-deadline:
					t.Fatalf("no guard of an hour armed on the clock within %s", waitTimeout)
				case <-time.After(time.Millisecond):
				}
			}
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("got %v, want context.DeadlineExceeded", err)
				}
			case <-time.After(waitTimeout):
				t.Fatalf("the request did not end within %s of its guard firing", waitTimeout)
			}
		})
	}
}
