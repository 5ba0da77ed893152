package protowire

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// recurring remembers strings that recur across objects (labels,
// annotations, namespaces, node names, images, tolerations), so that a
// store of pods holds one copy of each rather than one per pod. It is a
// table of sets of two slots, each set keeping the two strings hashed to it
// last: memory is bounded (recurringSlots strings), a string seen once costs
// a slot, never a lasting entry, and a string that recurs stays while it
// keeps coming. Two strings of one pod landing in one set are both kept.
var recurring struct {
	slots [recurringSlots]atomic.Pointer[string]
}

const recurringSlots = 4096

// recurringMax bounds the strings remembered: longer ones seldom recur.
const recurringMax = 256

// recur returns a string equal to b, the one remembered when there is one.
func recur(b []byte) (string, bool) {
	if len(b) == 0 || len(b) > recurringMax {
		return "", false
	}
	set := recurring.slots[recurringHash(b)%(recurringSlots/2)*2:][:2]
	for i := range set {
		if s := set[i].Load(); s != nil && *s == string(b) {
			return *s, true
		}
	}
	// The newer of the two moves over; races between readers only cost
	// a copy, never a wrong string: a slot holds an immutable string.
	s := strings.Clone(string(b))
	set[1].Store(set[0].Load())
	set[0].Store(&s)
	return s, true
}

// recurringHash is a hash of b that is the same in every process, so that
// which strings share a set does not change from run to run.
func recurringHash(b []byte) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h ^ h>>29
}

// RecurringString reads a string field, as String does, whose value is
// likely the same in many objects (a label, an image, a namespace): equal
// values read by any Reader share one copy.
func (r *Reader) RecurringString() string {
	if !r.want(wireBytes, "a string") {
		return ""
	}
	return r.recurringStr(r.data[r.lo:r.hi])
}

func (r *Reader) recurringStr(b []byte) string {
	if !utf8.Valid(b) {
		return r.str(b) // as String has it
	}
	if s, ok := recur(b); ok {
		return s
	}
	return r.str(b)
}
