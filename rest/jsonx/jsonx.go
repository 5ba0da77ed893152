package jsonx

import "time"

// Field is one JSON object member kept verbatim, or a run of members kept in
// another Encoding (KeepEncoded): then Value holds the run and Name marks it
// as one (Encoding says which), standing for no member.
type Field struct {
	Name  string
	Value []byte
}

// Extra keeps, in arrival order, the members of a JSON object that the Go type does
// not model. Encoding writes them back after the modelled ones; a JSON comparison of
// input and output then finds them equal.
type Extra []Field

// Keep captures the next value under name. The value is a copy, so the reader's
// input may be reused once decoding is done: a value of ShareMin bytes or more
// is shared with equal values kept elsewhere (see Share), a smaller one goes to
// an arena the values kept from one input share. Kept values are read-only.
func (e *Extra) Keep(r *Reader, name []byte) {
	v := r.Raw()
	if r.Err() == nil {
		*e = append(*e, Field{Name: intern(name), Value: r.hold(v)})
	}
}

// arenaChunk is the size of the arena's first chunk; a pod's small unmodelled
// values take a few hundred bytes.
const arenaChunk = 512

// hold copies a small v into r's arena and shares a large one. A full chunk is
// left as it is, for the values in it, and a new one begun.
func (r *Reader) hold(v []byte) []byte {
	if len(v) >= ShareMin {
		return Share(v)
	}
	if cap(r.arena)-len(r.arena) < len(v) {
		r.arena = make([]byte, 0, max(arenaChunk, 2*cap(r.arena), len(v)))
	}
	start := len(r.arena)
	r.arena = append(r.arena, v...)
	return r.arena[start:len(r.arena):len(r.arena)]
}

// Get returns the raw value kept under name, or nil. A member kept in another
// Encoding is written as JSON to be returned.
func (e Extra) Get(name string) []byte {
	for i := 0; i < len(e); i++ {
		f := e[i]
		enc := f.Encoding()
		if enc == nil {
			if f.Name == name {
				return f.Value
			}
			continue
		}
		n := runsOf(e[i:])
		if v := enc.member(e[i:i+n], name); v != nil {
			return v
		}
		i += n - 1
	}
	return nil
}

// FormatTime formats t as the API does: RFC 3339, with fractional seconds only when
// there are any, in the offset the value came with.
func FormatTime(t time.Time) string { return t.Format(time.RFC3339Nano) }
