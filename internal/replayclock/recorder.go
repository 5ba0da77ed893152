package replayclock

import (
	"slices"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// Recorder passes everything on to base and notes what it was asked: each
// wait (After) and each guard armed (AfterFunc, a Reset), with its
// duration. Between a replay's clock and the wall clock it tells what the
// replay asked of the wall clock.
type Recorder struct {
	base timing.TimerClock

	mu            sync.Mutex
	waits, guards []time.Duration
}

// NewRecorder records what is asked of base.
func NewRecorder(base timing.TimerClock) *Recorder { return &Recorder{base: base} }

func (r *Recorder) Now() time.Time { return r.base.Now() }

func (r *Recorder) After(d time.Duration) <-chan time.Time {
	r.note(&r.waits, d)
	return r.base.After(d)
}

func (r *Recorder) AfterFunc(d time.Duration, f func()) timing.Timer {
	r.note(&r.guards, d)
	return recordedTimer{t: r.base.AfterFunc(d, f), r: r}
}

// Waits lists the waits asked, in order.
func (r *Recorder) Waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.waits)
}

// Guards lists the guards armed (and re-armed), in order.
func (r *Recorder) Guards() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.guards)
}

func (r *Recorder) note(to *[]time.Duration, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*to = append(*to, d)
}

// recordedTimer notes each Reset as a guard armed again.
type recordedTimer struct {
	t timing.Timer
	r *Recorder
}

func (t recordedTimer) Stop() bool { return t.t.Stop() }

func (t recordedTimer) Reset(d time.Duration) bool {
	t.r.note(&t.r.guards, d)
	return t.t.Reset(d)
}
