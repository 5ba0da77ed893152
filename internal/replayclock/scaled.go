package replayclock

import (
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// ForSpeed is the clock of a replay at speed over base (the wall clock, or
// a Recorder of it): Scaled for a speed above 0, Virtual for 0 (or less),
// starting at base's now.
func ForSpeed(speed float64, base timing.TimerClock) timing.TimerClock {
	if speed > 0 {
		return NewScaled(base, speed)
	}
	return NewVirtual(base.Now(), base)
}

// Scaled is base run speed times as fast from the moment it is made: its
// time starts at base's and passes speed times as fast, and a wait or a
// guard of d asks base for d/speed.
type Scaled struct {
	base   timing.TimerClock
	speed  float64
	origin time.Time // base's time when made, and so the scaled time then
}

// NewScaled scales base by speed, which must be above 0.
func NewScaled(base timing.TimerClock, speed float64) *Scaled {
	if !(speed > 0) {
		panic("replayclock: a scaled clock needs a speed above 0")
	}
	return &Scaled{base: base, speed: speed, origin: base.Now()}
}

// Now is origin plus speed times the base time passed since.
func (s *Scaled) Now() time.Time {
	return s.origin.Add(time.Duration(float64(s.base.Now().Sub(s.origin)) * s.speed))
}

// After waits d/speed on base. The time the channel receives is base's.
func (s *Scaled) After(d time.Duration) <-chan time.Time { return s.base.After(s.onBase(d)) }

// AfterFunc arms a guard of d/speed on base.
func (s *Scaled) AfterFunc(d time.Duration, f func()) timing.Timer {
	return scaledTimer{t: s.base.AfterFunc(s.onBase(d), f), s: s}
}

// onBase is how long d of scaled time lasts on base.
func (s *Scaled) onBase(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.speed)
}

// scaledTimer is a base timer whose Reset takes scaled durations.
type scaledTimer struct {
	t timing.Timer
	s *Scaled
}

func (t scaledTimer) Stop() bool                 { return t.t.Stop() }
func (t scaledTimer) Reset(d time.Duration) bool { return t.t.Reset(t.s.onBase(d)) }
