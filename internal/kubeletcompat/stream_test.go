package kubeletcompat

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// update is what the comparison keeps of one pod config update: its
// operation, its source and the keys (namespace/name) of its pods, sorted;
// and, compared apart, a view of each pod.
type update struct {
	Op     string
	Source string
	Pods   []string
	Views  []string // the pods' views, in the order of Pods
}

// view prints what a kubelet acts on of a pod and both pod configs keep up
// to date in what they publish: its labels, its first container's image,
// its phase and its deletion fields. The rest is left out on purpose: the
// kubelet publishes its stored copy, whose other metadata is as first seen
// (see kubelet_test.go), where podwatch publishes the pod as last sent.
func view(key string, labels map[string]string, image, phase string, deletion *time.Time, grace *int64) string {
	var b strings.Builder
	b.WriteString(key + " labels=")
	for i, k := range slices.Sorted(maps.Keys(labels)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + labels[k])
	}
	b.WriteString(" image=" + image + " phase=" + phase)
	if deletion != nil {
		b.WriteString(" deleted=" + deletion.UTC().Format(time.RFC3339))
	}
	if grace != nil {
		b.WriteString(" grace=" + strconv.FormatInt(*grace, 10))
	}
	return b.String()
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
	// Views begin with their keys, so sorting both keeps them in step.
	slices.Sort(u.Pods)
	slices.Sort(u.Views)
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

// viewLines prints each update's pod views, one a line, for cmp.Diff.
func viewLines(us []update) []string {
	var out []string
	for _, u := range us {
		for _, v := range u.Views {
			out = append(out, u.Op+" "+v)
		}
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
