package protowire

import (
	"fmt"
	"math"
	"sync"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// Model is one message of the schema as a Go type models it: the fields the
// type reads itself, named by their JSON members, and the rest, which a
// Reader keeps in their wire form, checked against the schema, in the type's
// jsonx.Extra. The kept fields become JSON only when the object is written,
// through the Model's jsonx.Encoding, with the same writer as members kept
// from JSON. Models are declared once, as package variables.
type Model struct {
	msg      int
	modelled uint64 // bit n: field n is read by the type
	apart    uint64 // bit n: field n is kept as a run of its own
	enc      *jsonx.Encoding
	// keepEmpty: the message's JSON has members even when none of the kept
	// fields is there (a struct without omitempty, written as {}), so a
	// message with nothing kept still keeps an empty run to write them.
	keepEmpty bool
	checked   checkedRuns // small runs checked lately
}

// NewModel returns the model of m in which the fields named modelled are read
// by the Go type. It panics on a name m does not have, or on a field numbered
// 64 or more: a model is a fact about the schema, checked when declared.
func NewModel(m Message, modelled ...string) *Model {
	if maxNums[m.i] >= 64 {
		// The masks of modelled and skipped fields are 64 bits wide.
		panic(fmt.Sprintf("protowire: %s has fields numbered 64 or more; models reach fields 1 to 63", messages[m.i].name))
	}
	md := &Model{msg: m.i}
	for _, name := range modelled {
		md.modelled |= md.bit(name)
	}
	md.enc = jsonx.NewEncoding(md.write, md.member)
	md.keepEmpty = string(jsonx.Encode(func(w *jsonx.Writer) {
		o := w.BeginObject()
		md.write(&o, nil)
		o.End()
	})) != "{}"
	return md
}

// Apart makes the fields named be kept each as a run of its own rather than
// with the other kept fields, so that a large field equal in many objects is
// shared (jsonx.Share) even where the fields beside it differ: the field set
// of a managedFields entry, whose time differs between replicas.
func (md *Model) Apart(names ...string) *Model {
	for _, name := range names {
		md.apart |= md.bit(name)
	}
	return md
}

func (md *Model) bit(name string) uint64 {
	n := md.Num(name)
	if n >= 64 {
		panic(fmt.Sprintf("protowire: %s.%s is field %d; models reach fields 1 to 63", messages[md.msg].name, name, n))
	}
	return 1 << n
}

// Num returns the number of the field whose JSON member is name. It panics
// when there is none (see NewModel).
func (md *Model) Num(name string) int32 {
	n, _, ok := Message{md.msg}.Field(name)
	if !ok {
		panic(fmt.Sprintf("protowire: %s has no field %q", messages[md.msg].name, name))
	}
	return n
}

// Elem returns the message of the field whose JSON member is name (its
// elements', for a repeated field). It panics when there is none.
func (md *Model) Elem(name string) Message {
	_, m, ok := Message{md.msg}.Field(name)
	if !ok {
		panic(fmt.Sprintf("protowire: %s has no field %q", messages[md.msg].name, name))
	}
	return m
}

// Elem returns the message of m's field whose JSON member is name. It panics
// when there is none: for declaring models.
func (m Message) Elem(name string) Message {
	_, e, ok := m.Field(name)
	if !ok {
		panic(fmt.Sprintf("protowire: %s has no field %q", messages[m.i].name, name))
	}
	return e
}

func (md *Model) models(num int32) bool { return num < 64 && md.modelled&(1<<num) != 0 }

func (md *Model) isApart(num int32) bool { return num < 64 && md.apart&(1<<num) != 0 }

// writers transcode kept fields as objects are written: a pool, since
// objects are written from many goroutines.
var writers = sync.Pool{New: func() any { return &Transcoder{Limit: math.MaxInt} }}

// write writes the kept runs of one object as JSON members on o. The runs
// were checked against this transcoding's rules when they were kept (see
// runChecker.Check), so it cannot fail; if it somehow did, what was written of
// the member at fault stands, and the object's JSON is malformed.
func (md *Model) write(o *jsonx.ObjectWriter, runs []jsonx.Field) {
	t := writers.Get().(*Transcoder)
	defer writers.Put(t)
	t.w, t.depth = o.Writer(), 0
	start := len(t.occs)
	defer func() {
		// The pool holds no pod's bytes.
		clear(t.occs[start:])
		t.occs, t.w = t.occs[:start], nil
	}()
	for _, r := range runs {
		var err error
		if t.occs, err = scanFields(t.occs, r.Value, 0); err != nil {
			return
		}
	}
	_ = t.fields(o, md.msg, start, md.modelled)
}

// member returns the JSON value of the kept field whose JSON member is name,
// nil when the runs do not hold it (or the JSON would leave it out).
func (md *Model) member(runs []jsonx.Field, name string) []byte {
	num, _, ok := Message{md.msg}.Field(name)
	if !ok || md.models(num) || num >= 64 {
		return nil
	}
	// Written alone, as the one field the mask lets through, and cut out of
	// the object written around it: {"name":value}.
	var out []byte
	obj := jsonx.Encode(func(w *jsonx.Writer) {
		o := w.BeginObject()
		t := writers.Get().(*Transcoder)
		defer writers.Put(t)
		t.w, t.depth = w, 0
		start := len(t.occs)
		defer func() {
			clear(t.occs[start:])
			t.occs, t.w = t.occs[:start], nil
		}()
		for _, r := range runs {
			var err error
			if t.occs, err = scanFields(t.occs, r.Value, 0); err != nil {
				return
			}
		}
		_ = t.fields(&o, md.msg, start, ^uint64(0)&^(1<<num))
		o.End()
	})
	prefix := len(`{"`) + len(name) + len(`":`)
	if len(obj) > prefix+1 {
		out = obj[prefix : len(obj)-1]
	}
	return out
}
