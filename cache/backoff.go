package cache

import (
	"math/rand/v2"
	"time"
)

// Backoff spaces out retries after failures: Initial, doubling up to Max, each wait
// drawn at random from its upper half so that many clients failing together do not
// come back together. After Reset of quiet (no failure), it starts again at Initial.
type Backoff struct {
	Initial time.Duration // default 800ms
	Max     time.Duration // default 30s
	Reset   time.Duration // default 2m
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 800 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	if b.Reset <= 0 {
		b.Reset = 2 * time.Minute
	}
	return b
}

// backoffState is the running count of a Backoff.
type backoffState struct {
	cfg      Backoff
	rand     func() float64
	failures int
	last     time.Time
}

// next returns the wait after a failure at now.
func (s *backoffState) next(now time.Time) time.Duration {
	if !s.last.IsZero() && now.Sub(s.last) > s.cfg.Reset {
		s.failures = 0
	}
	s.last = now
	d := s.cfg.Initial << min(s.failures, 30)
	if d <= 0 || d > s.cfg.Max {
		d = s.cfg.Max
	}
	s.failures++
	r := s.rand
	if r == nil {
		r = rand.Float64
	}
	return d/2 + time.Duration(r()*float64(d/2))
}
