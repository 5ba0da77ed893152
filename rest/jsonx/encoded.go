package jsonx

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Encoding is a format other than JSON in which an object's unmodelled
// members can be kept: a decoder that reads, say, protobuf keeps the fields its
// type does not model in their wire form, and they become JSON only when the
// object is written. One Encoding stands for one message of that format as one
// Go type models it; its write function turns a run of kept fields back into
// JSON members.
//
// Kept values of an Encoding sit in an Extra beside JSON ones, so a type's
// WriteJSON writes them with the same ObjectWriter.Extra call, whichever
// format the object was decoded from.
type Encoding struct {
	write  func(o *ObjectWriter, runs []Field)
	member func(runs []Field, name string) []byte
	// mark is the Name of the Fields that hold this Encoding's runs: a string
	// of this Encoding's own, told from a member name by its address (see
	// Field.Encoding), so that a Field needs no room for an Encoding.
	mark string
}

// encodings finds an Encoding by its mark; written when one is made, read
// (without a lock) whenever an Extra holding runs is written.
var encodings = struct {
	sync.Mutex
	m atomic.Pointer[map[string]*Encoding]
}{}

// NewEncoding returns an Encoding whose members are written by write: it is
// handed, together, every run of members one object kept in this Encoding, in
// the order they were kept, and writes them on o as JSON members. It cannot
// fail: the decoder checked the runs when it kept them. member returns the
// JSON value of the one member name of such runs, nil when they hold none,
// for Extra.Get. Encodings are made once, as package variables.
func NewEncoding(write func(o *ObjectWriter, runs []Field), member func(runs []Field, name string) []byte) *Encoding {
	encodings.Lock()
	defer encodings.Unlock()
	old := encodings.m.Load()
	m := make(map[string]*Encoding, 1)
	if old != nil {
		maps.Copy(m, *old)
	}
	enc := &Encoding{write: write, member: member, mark: markPrefix + strconv.Itoa(len(m))}
	m[enc.mark] = enc
	encodings.m.Store(&m)
	return enc
}

// markPrefix starts every mark; no member name a reader decodes does (0xff is
// not UTF-8, and the readers turn it into U+FFFD), so telling a Field holding
// a member from one holding a run costs one byte's compare. A name made by
// code may still read like a mark: Encoding tells them apart.
const markPrefix = "\xff\x00encoded:"

// Encoding returns the Encoding f's Value is kept in, nil for JSON. A run's
// Name is its Encoding's mark, the very string: a member whose name merely
// reads the same is a member.
func (f Field) Encoding() *Encoding {
	if len(f.Name) <= len(markPrefix) || f.Name[0] != markPrefix[0] {
		return nil
	}
	m := encodings.m.Load()
	if m == nil {
		return nil
	}
	enc := (*m)[f.Name]
	if enc == nil || unsafe.StringData(enc.mark) != unsafe.StringData(f.Name) {
		return nil
	}
	return enc
}

// KeepEncoded keeps data, a run of members in enc, among e's members. data
// must already be a copy the caller will not change (see Encoding.Share).
func (e *Extra) KeepEncoded(enc *Encoding, data []byte) {
	*e = append(*e, Field{Name: enc.mark, Value: data})
}

// Share returns bytes equal to v shared with equal values kept in enc, as
// Share does for JSON values; values of different Encodings are never shared.
// check.Check is called, before anything is kept, only when no equal value of enc is
// alive: bytes checked once need no second check, so an object whose members
// repeat those of others (replicas, the next version of one object) is checked
// at the cost of comparing them. An error from check is returned as it is.
func (enc *Encoding) Share(v []byte, check Checker) ([]byte, error) {
	return share(enc, v, check)
}

// Checker checks a value before Encoding.Share keeps it.
type Checker interface{ Check() error }

// writeEncoded writes the run of fields of enc that starts e and returns how
// many fields it took.
func (o *ObjectWriter) writeEncoded(e Extra, enc *Encoding) int {
	n := runsOf(e)
	// A copy goes to the write function, so that o itself, written on by
	// every WriteJSON, does not escape to the heap through the call.
	c := *o
	enc.write(&c, e[:n])
	*o = c
	return n
}

// runsOf is how many fields at the start of e hold runs of e[0]'s Encoding:
// the same mark, the very string, which the fields of one Encoding share.
func runsOf(e Extra) int {
	n := 1
	for n < len(e) && unsafe.StringData(e[n].Name) == unsafe.StringData(e[0].Name) && len(e[n].Name) == len(e[0].Name) {
		n++
	}
	return n
}

// Writer returns the Writer o writes on, for an Encoding's write function.
func (o *ObjectWriter) Writer() *Writer { return o.w }
