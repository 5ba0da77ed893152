// Package timing declares the clock podwatch's client runs on, and the wall
// clock it defaults to. The REST client's waits and guards, the reflector's
// backoffs, the watchdog of a watch body, the fixture server and the trace
// all ask a Clock, never the time package, so that a replay can run them on
// its own time (package replayclock: scaled, or virtual).
//
// It is internal because only podwatch's own tools choose a clock: a
// program that watches pods runs on the wall clock, which is what every
// public constructor uses. It imports no podwatch package, so that rest,
// cache and the toolkit can all import it.
package timing

import (
	"sync"
	"time"
)

// Clock is the time a client runs on.
//
// It knows two kinds of timing, and a clock that is not the wall clock
// treats them differently:
//   - a wait (After) is a pause the caller chooses to make while it has
//     nothing else to do: a backoff, a Retry-After. A virtual clock lets it
//     pass at once, moving its time on by d.
//   - a guard (AfterFunc, see TimerClock) is a deadline for something else
//     to happen: a header timeout, a silent body's watchdog, a watch list's
//     closing bookmark. It never moves time itself; it fires once time has
//     passed it.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed: a wait.
	After(d time.Duration) <-chan time.Time
}

// TimerClock is a Clock that arms guards itself. A Clock that is not one
// gets its guards from After (see AfterFunc), which is right for a clock
// whose After blocks for d, as the wall clock's does.
type TimerClock interface {
	Clock
	// AfterFunc calls f once d has passed, unless the Timer is stopped
	// first: a guard. f runs on a goroutine of the clock's choosing (the
	// wall clock's own; a virtual clock's, the goroutine whose wait moved
	// time past it, before that wait returns) and must not block.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a guard armed on a Clock; its methods mean what time.Timer's do
// for a timer made by time.AfterFunc.
type Timer interface {
	// Stop keeps f from being called; false when it already was, or the
	// timer was stopped.
	Stop() bool
	// Reset arms the timer again for d from now; false when it had fired or
	// been stopped.
	Reset(d time.Duration) bool
}

// Wall is the real time of the machine, the default everywhere.
var Wall TimerClock = wallClock{}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (wallClock) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}

// OrWall is c, or the wall clock when c is nil.
func OrWall(c Clock) Clock {
	if c == nil {
		return Wall
	}
	return c
}

// AfterFunc arms a guard on c (nil: the wall clock): f is called once d
// has passed on c, unless the Timer is stopped first; it must not block. A
// TimerClock arms it itself; for any other Clock a goroutine waits on
// c.After, calls f, and ends when the guard fires or is stopped.
func AfterFunc(c Clock, d time.Duration, f func()) Timer {
	c = OrWall(c)
	if tc, ok := c.(TimerClock); ok {
		return tc.AfterFunc(d, f)
	}
	return newAfterTimer(c, d, f)
}

// afterTimer is a guard made from a Clock's After: one goroutine per arming,
// which ends when the wait is over or the timer is stopped or reset.
type afterTimer struct {
	c Clock
	f func()

	mu    sync.Mutex
	armed bool
	gen   int           // which arming may fire: an older goroutine does nothing
	stop  chan struct{} // closed to end the current arming's goroutine
}

func newAfterTimer(c Clock, d time.Duration, f func()) *afterTimer {
	t := &afterTimer{c: c, f: f}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armLocked(d)
	return t
}

func (t *afterTimer) armLocked(d time.Duration) {
	t.gen++
	gen, stop, ch := t.gen, make(chan struct{}), t.c.After(d)
	t.armed, t.stop = true, stop
	go func() {
		select {
		case <-ch:
		case <-stop:
			return
		}
		t.mu.Lock()
		fire := t.armed && t.gen == gen
		t.armed = t.armed && !fire
		t.mu.Unlock()
		if fire {
			t.f()
		}
	}()
}

func (t *afterTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.armed
	if was {
		t.armed = false
		close(t.stop)
	}
	return was
}

func (t *afterTimer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.armed
	if was {
		close(t.stop)
	}
	t.armLocked(d)
	return was
}
