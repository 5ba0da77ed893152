package replayclock

import (
	"slices"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// Virtual is a replay's time at speed 0: it stands still until someone
// waits, and a wait passes at once, moving it on by the wait's length.
// Guards fire when waits move it past their deadline, on the goroutine of
// that wait and before the wait returns, in the order of their deadlines;
// they never move it themselves.
//
// A guard is there for a peer that never answers, and on a virtual clock
// nobody may be left to wait while it stays silent, so time would never
// reach the deadline: each guard of d is therefore also armed on the
// backstop clock (the wall clock) for d, and fires at whichever comes
// first. A replay that runs well ends long before any backstop is due;
// none is a wait, as nothing blocks on it.
type Virtual struct {
	backstop timing.TimerClock // nil: guards fire only by virtual time

	mu     sync.Mutex
	now    time.Time
	timers []*virtualTimer // armed, in the order they were armed
	waits  []time.Duration
}

// NewVirtual starts a virtual clock at start, its guards backed by backstop
// (nil for none).
func NewVirtual(start time.Time, backstop timing.TimerClock) *Virtual {
	return &Virtual{now: start, backstop: backstop}
}

// Now is the virtual time: start plus every wait so far.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// After moves the time on by d (nothing for d <= 0), fires the guards it
// passes, and returns a channel that already holds the new time.
func (v *Virtual) After(d time.Duration) <-chan time.Time {
	v.mu.Lock()
	v.waits = append(v.waits, d)
	if d > 0 {
		v.now = v.now.Add(d)
	}
	now, due := v.now, v.dueLocked()
	v.mu.Unlock()
	for _, t := range due {
		t.f()
	}
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// Waits lists the waits asked of the clock, in order: the time it was moved
// on by (zero or negative ones included, as asked).
func (v *Virtual) Waits() []time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.waits)
}

// dueLocked takes the armed timers whose deadline has come out of the list,
// disarmed, earliest deadline first; v.mu is held.
func (v *Virtual) dueLocked() []*virtualTimer {
	var due []*virtualTimer
	v.timers = slices.DeleteFunc(v.timers, func(t *virtualTimer) bool {
		if t.deadline.After(v.now) {
			return false
		}
		due = append(due, t)
		return true
	})
	slices.SortStableFunc(due, func(a, b *virtualTimer) int { return a.deadline.Compare(b.deadline) })
	for _, t := range due {
		t.disarmLocked()
	}
	return due
}

// AfterFunc arms a guard d from now; d <= 0 fires it at once, on a
// goroutine of its own, as time.AfterFunc does.
func (v *Virtual) AfterFunc(d time.Duration, f func()) timing.Timer {
	t := &virtualTimer{v: v, f: f}
	v.mu.Lock()
	defer v.mu.Unlock()
	t.armLocked(d)
	return t
}

// virtualTimer is a guard on a Virtual clock; its fields are guarded by
// v.mu.
type virtualTimer struct {
	v        *Virtual
	f        func()
	deadline time.Time
	armed    bool
	gen      int          // which arming its backstop belongs to
	back     timing.Timer // the backstop of the current arming
}

func (t *virtualTimer) armLocked(d time.Duration) {
	t.gen++
	if d <= 0 {
		go t.f()
		return
	}
	t.deadline, t.armed = t.v.now.Add(d), true
	t.v.timers = append(t.v.timers, t)
	if t.v.backstop != nil {
		gen := t.gen
		t.back = t.v.backstop.AfterFunc(d, func() { t.fromBackstop(gen) })
	}
}

// disarmLocked takes the timer out of service; the caller has taken it out
// of the list.
func (t *virtualTimer) disarmLocked() {
	t.armed = false
	if t.back != nil {
		t.back.Stop()
		t.back = nil
	}
}

// fromBackstop fires the timer when its backstop comes first.
func (t *virtualTimer) fromBackstop(gen int) {
	t.v.mu.Lock()
	fire := t.armed && t.gen == gen
	if fire {
		t.v.timers = slices.DeleteFunc(t.v.timers, func(o *virtualTimer) bool { return o == t })
		t.disarmLocked()
	}
	t.v.mu.Unlock()
	if fire {
		t.f()
	}
}

func (t *virtualTimer) Stop() bool {
	t.v.mu.Lock()
	defer t.v.mu.Unlock()
	was := t.armed
	if was {
		t.v.timers = slices.DeleteFunc(t.v.timers, func(o *virtualTimer) bool { return o == t })
		t.disarmLocked()
	}
	return was
}

func (t *virtualTimer) Reset(d time.Duration) bool {
	was := t.Stop()
	t.v.mu.Lock()
	defer t.v.mu.Unlock()
	t.armLocked(d)
	return was
}
