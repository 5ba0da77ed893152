package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Op names a change to one pod.
type Op string

// The changes a history is made of.
const (
	Create   Op = "create"   // a new pod, bound to a node or not
	Bind     Op = "bind"     // an unbound pod gets its node (a scheduler's binding)
	Spec     Op = "spec"     // the image changes
	Status   Op = "status"   // the phase changes
	Graceful Op = "graceful" // a delete that only sets deletionTimestamp
	Delete   Op = "delete"   // the pod is gone
)

// Change is one change at one resourceVersion (Pod.RV). Pod is the version
// after it; for a Delete, the last version, carrying the deletion's RV.
type Change struct {
	Op  Op
	Pod Pod

	prev *Pod // the version before, set by History.Add
}

// Prev is the pod's version before the change; ok is false for a Create.
func (c Change) Prev() (p Pod, ok bool) {
	if c.prev == nil {
		return Pod{}, false
	}
	return *c.prev, true
}

// History is the true sequence of changes to a collection of pods, in
// resourceVersion order. It is safe for concurrent use.
type History struct {
	mu      sync.RWMutex
	start   int64 // the version before the first change: the state there is empty
	changes []Change
	cur     map[string]Pod // the state after the last change
}

// NewHistory returns an empty history whose state at start, and at every later
// version until the first change, is no pods.
func NewHistory(start int64) *History { return &History{start: start, cur: map[string]Pod{}} }

// Add appends c. Its RV must be newer than the last change's, a Create must
// name a pod not present, and the other ops one that is.
func (h *History) Add(c Change) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if last := h.lastLocked(); c.Pod.RV <= last {
		return fmt.Errorf("model: %s of %s at %d is not after %d", c.Op, c.Pod.Key(), c.Pod.RV, last)
	}
	prev, present := h.cur[c.Pod.Key()]
	if (c.Op == Create) == present {
		return fmt.Errorf("model: %s of %s: present=%t", c.Op, c.Pod.Key(), present)
	}
	c.prev = nil
	if present {
		c.prev = &prev
	}
	if c.Op == Delete {
		delete(h.cur, c.Pod.Key())
	} else {
		h.cur[c.Pod.Key()] = c.Pod
	}
	h.changes = append(h.changes, c)
	return nil
}

// Last is the resourceVersion of the last change (the start if none).
func (h *History) Last() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.lastLocked()
}

// Start is the version before the first change.
func (h *History) Start() int64 { return h.start }

func (h *History) lastLocked() int64 {
	if len(h.changes) == 0 {
		return h.start
	}
	return h.changes[len(h.changes)-1].Pod.RV
}

// replay returns every pod present at rv, by key.
func (h *History) replay(rv int64) map[string]Pod {
	set := map[string]Pod{}
	for _, c := range h.changes {
		if c.Pod.RV > rv {
			break
		}
		if c.Op == Delete {
			delete(set, c.Pod.Key())
		} else {
			set[c.Pod.Key()] = c.Pod
		}
	}
	return set
}

// StateAt returns the pods on node ("" for every pod) at resourceVersion rv,
// sorted by key. ok is false for a version before the history's start.
func (h *History) StateAt(rv int64, node string) (pods []Pod, ok bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if rv < h.start {
		return nil, false
	}
	return sorted(h.replay(rv), node), true
}

// Current is StateAt(Last(), node).
func (h *History) Current(node string) ([]Pod, int64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return sorted(h.cur, node), h.lastLocked()
}

// Pod returns the version of pod key present at rv.
func (h *History) Pod(key string, rv int64) (Pod, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	p, ok := h.replay(rv)[key]
	return p, ok
}

// After returns the changes with RV > rv, in order.
func (h *History) After(rv int64) []Change {
	h.mu.RLock()
	defer h.mu.RUnlock()
	i, _ := slices.BinarySearchFunc(h.changes, rv, func(c Change, rv int64) int {
		switch {
		case c.Pod.RV <= rv:
			return -1
		default:
			return 1
		}
	})
	return slices.Clone(h.changes[i:])
}

// Changes is the number of changes.
func (h *History) Changes() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.changes)
}

func sorted(set map[string]Pod, node string) []Pod {
	out := make([]Pod, 0, len(set))
	for _, p := range set {
		if node == "" || p.Node == node {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Pod) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}
