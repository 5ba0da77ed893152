package kubeletcompat

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// update is what the comparison keeps of one pod config update: its
// operation, its source and the keys (namespace/name) of its pods, sorted.
// The pods' contents are left out on purpose: the two pod configs hand out
// different types, and what a kubelet does next is chosen by these three.
type update struct {
	Op     string
	Source string
	Pods   []string
}

func (u update) String() string {
	return fmt.Sprintf("%s %s [%s]", u.Op, u.Source, strings.Join(u.Pods, " "))
}

// marked is an update and the barrier step it carries, or noStep.
type marked struct {
	update
	step int
}

const noStep = -1

// stream collects one pod config's updates as they arrive and hands them
// out step by step. Safe for concurrent use.
type stream struct {
	name string

	mu      sync.Mutex
	got     []marked
	taken   int           // updates already handed out by through
	changed chan struct{} // closed and replaced on every add
}

func newStream(name string) *stream {
	return &stream{name: name, changed: make(chan struct{})}
}

func (s *stream) add(u update, step int) {
	slices.Sort(u.Pods)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, marked{update: u, step: step})
	close(s.changed)
	s.changed = make(chan struct{})
}

// through waits until an update carrying barrier step arrives, and returns
// the updates after those it handed out before, up to and including that
// one. When ctx ends first it returns what came so far and ctx's error.
func (s *stream) through(ctx context.Context, step int) ([]update, error) {
	for {
		s.mu.Lock()
		changed := s.changed
		for i := s.taken; i < len(s.got); i++ {
			if s.got[i].step == step {
				out := updatesOf(s.got[s.taken : i+1])
				s.taken = i + 1
				s.mu.Unlock()
				return out, nil
			}
		}
		pending := updatesOf(s.got[s.taken:])
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return pending, fmt.Errorf("%s: no update carried barrier step %d: %w", s.name, step, ctx.Err())
		}
	}
}

// all returns every update so far.
func (s *stream) all() []update {
	s.mu.Lock()
	defer s.mu.Unlock()
	return updatesOf(s.got)
}

func updatesOf(ms []marked) []update {
	out := make([]update, len(ms))
	for i, m := range ms {
		out[i] = m.update
	}
	return out
}

// lines prints updates one a line, for cmp.Diff.
func lines(us []update) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.String()
	}
	return out
}
