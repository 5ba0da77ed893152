// Package jsonx holds the small pieces podwatch's hand-written JSON codecs share: a
// store for the fields a type does not model (so that decoding and encoding again
// loses nothing) and an object writer that applies the API's omitempty rules.
package jsonx

import (
	"time"

	jsoniter "github.com/json-iterator/go"
)

// Field is one JSON object member kept verbatim.
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
		*e = append(*e, Field{Name: Intern(name), Value: r.hold(v)})
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

// Get returns the raw value kept under name, or nil.
func (e Extra) Get(name string) []byte {
	for _, f := range e {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

// Writer writes one JSON object member by member, inserting the commas.
type Writer struct {
	S    *jsoniter.Stream
	more bool
}

// Begin starts an object on s.
func Begin(s *jsoniter.Stream) Writer {
	s.WriteObjectStart()
	return Writer{S: s}
}

// End closes the object.
func (w *Writer) End() { w.S.WriteObjectEnd() }

// Field writes a member name; the caller writes the value next.
func (w *Writer) Field(name string) {
	if w.more {
		w.S.WriteMore()
	}
	w.S.WriteObjectField(name)
	w.more = true
}

// String writes a string member unless it is empty.
func (w *Writer) String(name, v string) {
	if v != "" {
		w.Field(name)
		w.S.WriteString(v)
	}
}

// Int64 writes an integer member unless it is zero.
func (w *Writer) Int64(name string, v int64) {
	if v != 0 {
		w.Field(name)
		w.S.WriteInt64(v)
	}
}

// Int64Ptr writes an integer member when set, zero included.
func (w *Writer) Int64Ptr(name string, v *int64) {
	if v != nil {
		w.Field(name)
		w.S.WriteInt64(*v)
	}
}

// StringMap writes a map of strings unless it is nil, with keys in sorted order so
// output is deterministic.
func (w *Writer) StringMap(name string, m map[string]string) {
	if m == nil {
		return
	}
	w.Field(name)
	WriteStringMap(w.S, m)
}

// Raw writes a member whose value is already encoded JSON.
func (w *Writer) Raw(name string, v []byte) {
	w.Field(name)
	w.S.Write(v)
}

// Extra writes back every kept member but those KeepObjects held elsewhere
// (ExtraWith writes those too).
func (w *Writer) Extra(e Extra) {
	for _, f := range e {
		if f.Value != nil {
			w.Raw(f.Name, f.Value)
		}
	}
}

// Time writes a timestamp member unless it is the zero time.
func (w *Writer) Time(name string, t time.Time) {
	if !t.IsZero() {
		w.Field(name)
		w.S.WriteString(FormatTime(t))
	}
}

// FormatTime formats t as the API does: RFC 3339, with fractional seconds only when
// there are any, in the offset the value came with.
func FormatTime(t time.Time) string { return t.Format(time.RFC3339Nano) }
