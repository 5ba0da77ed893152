package protowire

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// checkedRuns remembers the last few small runs of one Model that passed
// their check, so that a run equal to one of them needs no second check: a
// run too small to share (jsonx.ShareMin), such as a managedFields entry
// without its field set, repeats from one version of a pod to the next.
// Memory is bounded: a fixed number of slots, each at most ShareMin bytes,
// the oldest overwritten.
type checkedRuns struct {
	mu    sync.Mutex
	slots [checkedSlots]checkedRun
}

const checkedSlots = 32

type checkedRun struct {
	h uint64
	v []byte
}

var checkedSeed = maphash.MakeSeed()

// has reports whether run is one of the remembered runs.
func (c *checkedRuns) has(run []byte) (bool, uint64) {
	h := maphash.Bytes(checkedSeed, run)
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.slots[h%checkedSlots]
	return s.h == h && s.v != nil && bytes.Equal(s.v, run), h
}

// add remembers run, which passed its check, under its hash h.
func (c *checkedRuns) add(run []byte, h uint64) {
	v := bytes.Clone(run)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots[h%checkedSlots] = checkedRun{h: h, v: v}
}
