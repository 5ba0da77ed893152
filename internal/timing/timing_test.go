package timing

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// waitTimeout bounds every wait of these tests for something that should
// happen at once.
const waitTimeout = 10 * time.Second

// handClock is a plain Clock (it arms no guards) the test moves by hand:
// each After is noted, and passes only when the test says.
type handClock struct {
	mu     sync.Mutex
	waits  []time.Duration
	afters []chan time.Time
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

// TestAfterFuncOverAPlainClock: a Clock that arms no guards of its own gets
// them from its After; a stopped or reset arming never fires.
func TestAfterFuncOverAPlainClock(t *testing.T) {
	c := &handClock{}
	fired := make(chan string, 4)
	stopped := AfterFunc(c, time.Second, func() { fired <- "stopped" })
	reset := AfterFunc(c, 2*time.Second, func() { fired <- "reset" })
	if !stopped.Stop() || stopped.Stop() {
		t.Fatalf("Stop: want true once, then false")
	}
	if !reset.Reset(3 * time.Second) {
		t.Fatalf("Reset of an armed guard: got false")
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, c.asked()); diff != "" {
		t.Fatalf("waits asked (-want +got):\n%s", diff)
	}
	c.pass(0) // the stopped guard's
	c.pass(1) // the reset guard's first arming
	c.pass(2)
	select {
	case got := <-fired:
		if got != "reset" {
			t.Fatalf("fired %q, want the reset guard", got)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("the reset guard did not fire within %s", waitTimeout)
	}
	if reset.Stop() {
		t.Fatalf("Stop after firing: got true")
	}
	select {
	case got := <-fired:
		t.Fatalf("%q fired too", got)
	case <-time.After(50 * time.Millisecond): // a margin for a wrong fire, not a timing bound
	}
}

// TestAfterFuncOnNilIsTheWallClock: a nil Clock means the wall clock, for
// guards as for OrWall.
func TestAfterFuncOnNilIsTheWallClock(t *testing.T) {
	if OrWall(nil) != Wall {
		t.Fatalf("OrWall(nil) = %v, want Wall", OrWall(nil))
	}
	fired := make(chan struct{})
	AfterFunc(nil, time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(waitTimeout):
		t.Fatalf("a guard on the nil clock did not fire within %s", waitTimeout)
	}
}
