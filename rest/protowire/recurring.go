package protowire

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// recurring remembers strings that recur across objects (labels,
// annotations, namespaces, node names, images, tolerations), so that a
// store of pods holds one copy of each rather than one per pod. It is a
// direct-mapped table: a slot keeps the last string hashed to it, so memory
// is bounded (recurringSlots strings) and a string seen once costs a slot,
// never a lasting entry; a string that recurs stays while it keeps coming.
var recurring struct {
	slots [recurringSlots]atomic.Pointer[string]
}

const recurringSlots = 4096

// recurringMax bounds the strings remembered: longer ones seldom recur.
const recurringMax = 256

var recurringSeed = maphash.MakeSeed()

// recur returns a string equal to b, the one remembered when there is one.
func recur(b []byte) (string, bool) {
	if len(b) == 0 || len(b) > recurringMax {
		return "", false
	}
	slot := &recurring.slots[maphash.Bytes(recurringSeed, b)%recurringSlots]
	if s := slot.Load(); s != nil && *s == string(b) {
		return *s, true
	}
	s := strings.Clone(string(b))
	slot.Store(&s)
	return s, true
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
