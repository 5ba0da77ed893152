package protowire

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// maxDepth bounds how deeply messages nest. The schema's own nesting is far
// shallower; the bound only guards against a schema that grew a cycle.
const maxDepth = 64

// Message names one message of the schema, such as a Pod or a PodList.
type Message struct{ i int }

// Root returns the message an envelope of kind holds: Pod, PodList, Status
// or WatchEvent.
func Root(kind string) (Message, bool) {
	i, ok := roots[kind]
	return Message{i}, ok
}

// Named returns the message of the schema named name: its Go package path
// without "k8s.io/", a dot and its type, as in
// "apimachinery/pkg/apis/meta/v1.ObjectMeta".
func Named(name string) (Message, bool) {
	for i := range messages {
		if messages[i].name == name {
			return Message{i}, true
		}
	}
	return Message{}, false
}

// Field returns the number of m's field with JSON member name json, and the
// message its elements are (for a message field).
func (m Message) Field(json string) (num int32, elem Message, ok bool) {
	for _, f := range messages[m.i].fields {
		if f.json == json {
			return f.num, Message{f.msg}, true
		}
	}
	return 0, Message{}, false
}

// Transcoder writes protobuf messages as the apiserver's JSON for them. Its
// zero value is ready; it reuses its buffers, so what it returns is valid
// until its next call. It is not safe for concurrent use.
//
// A string field is bytes that protobuf does not check: they are written by
// jsonx.AppendQuote as encoding/json writes a Go string holding them, each
// byte that is not part of valid UTF-8 as \ufffd, which is what the
// apiserver's JSON has for the same field.
type Transcoder struct {
	// Limit bounds the JSON one call writes, in bytes; 0 means
	// DefaultLimit. Protobuf is denser than JSON (an empty message is two
	// bytes, its JSON may be dozens), so the bound on a frame or an item does
	// not bound its transcoding: this does, with a *TooLargeError.
	Limit int

	spans   []span     // where each field's occurrences are, per message being written
	entries []mapEntry // the entries of the maps being written
	w       *jsonx.Writer
	str     []byte // scratch for jsonx.AppendQuote
	occs    []occ  // the fields of the messages being written, innermost last
	depth   int
}

// Object returns the JSON of the object in u: kind and apiVersion from its
// type, then its members. Errors are a *KindError for a kind the schema does
// not hold, or a *SyntaxError at the stream offset of the byte at fault.
func (t *Transcoder) Object(u *Unknown) ([]byte, error) {
	m, ok := Root(u.Kind)
	if !ok {
		return nil, &KindError{APIVersion: u.APIVersion, Kind: u.Kind}
	}
	t.reset()
	o := t.w.BeginObject()
	o.String("kind", u.Kind)
	o.String("apiVersion", u.APIVersion)
	if err := t.members(&o, m.i, u.Raw, u.RawOffset); err != nil {
		return nil, err
	}
	o.End()
	return t.w.Bytes(), nil
}

// Message returns the JSON of one m encoded in data, which starts at stream
// offset base: a list item, say, which has no kind of its own.
func (t *Transcoder) Message(m Message, data []byte, base int64) ([]byte, error) {
	t.reset()
	if err := t.message(m.i, data, base); err != nil {
		return nil, err
	}
	return t.w.Bytes(), nil
}

func (t *Transcoder) reset() {
	if t.w == nil {
		t.w = jsonx.NewWriter()
	}
	t.w.Reset()
	t.occs, t.depth = t.occs[:0], 0
}

type span struct{ lo, hi int32 }

// mapEntry is one entry of a map being written.
type mapEntry struct {
	key []byte
	val occ
}

func byNum(a, b occ) int { return cmp.Compare(a.num, b.num) }

// Each field's member name, as the writer writes it ("name":), is made once
// rather than escaped for every member of every object.
func init() {
	for i := range messages {
		for j := range messages[i].fields {
			f := &messages[i].fields[j]
			f.key = jsonx.MemberKey(f.json)
		}
	}
}

// maxNums[i] is the highest field number of messages[i].
var maxNums = func() []int32 {
	m := make([]int32, len(messages))
	for i, msg := range messages {
		for _, f := range msg.fields {
			m[i] = max(m[i], f.num)
		}
	}
	return m
}()

// DefaultLimit is the Transcoder's bound on one object's JSON when its Limit
// is zero: as much as the watch decoder allows one JSON event.
const DefaultLimit = 16 << 20

// TooLargeError is an object whose JSON would be longer than Limit bytes.
type TooLargeError struct{ Limit int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("protobuf: object's JSON longer than %d bytes", e.Limit)
}

// checkSize fails once the JSON written is over the limit. It is called
// after each member and element, so the overshoot is one scalar at most
// beyond a member already checked.
func (t *Transcoder) checkSize() error {
	limit := t.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(t.w.Bytes()) > limit {
		return &TooLargeError{Limit: limit}
	}
	return nil
}

// KindError is an envelope holding a kind the schema does not describe.
type KindError struct{ APIVersion, Kind string }

func (e *KindError) Error() string {
	return fmt.Sprintf("protobuf: no schema for kind %q (apiVersion %q)", e.Kind, e.APIVersion)
}

func (t *Transcoder) message(mi int, data []byte, base int64) error {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > maxDepth {
		return &SyntaxError{Offset: base, Msg: "messages nested too deeply"}
	}
	switch messages[mi].form {
	case formObject:
		o := t.w.BeginObject()
		if err := t.members(&o, mi, data, base); err != nil {
			return err
		}
		o.End()
		return nil
	case formRawJSON:
		return t.rawJSON(data, base)
	case formList:
		return t.list(mi, data, base)
	}
	return t.special(mi, data, base)
}

// list writes a named slice type's message as the array of its items.
func (t *Transcoder) list(mi int, data []byte, base int64) error {
	start := len(t.occs)
	defer func() { t.occs = t.occs[:start] }()
	var err error
	if t.occs, err = scanFields(t.occs, data, base); err != nil {
		return err
	}
	n := start
	for _, o := range t.occs[start:] {
		if o.num == 1 {
			t.occs[n] = o
			n++
		}
	}
	return t.array(&messages[mi].fields[0], t.occs[start:n])
}

// members writes the fields of message mi as members of o: its own object,
// or its parent's for an inline message.
func (t *Transcoder) members(o *jsonx.ObjectWriter, mi int, data []byte, base int64) error {
	start := len(t.occs)
	defer func() { t.occs = t.occs[:start] }()
	var err error
	if t.occs, err = scanFields(t.occs, data, base); err != nil {
		return err
	}
	return t.fields(o, mi, start, 0)
}

// fields writes the fields of message mi whose occurrences were scanned
// into t.occs[start:], but for those whose numbers are set in skip: the
// fields a Go type models itself, when the rest were kept (see Model).
func (t *Transcoder) fields(o *jsonx.ObjectWriter, mi, start int, skip uint64) error {
	// A stable sort by number keeps repeated values in order; the schema's
	// fields are then found by binary search whatever order they came in.
	// Children append past this message's fields, so occs stays valid even
	// when t.occs grows.
	occs := t.occs[start:]
	if !slices.IsSortedFunc(occs, byNum) {
		slices.SortStableFunc(occs, byNum)
	}
	// spans[n] locates field n's occurrences in occs, for the fields of the
	// schema to be found in their own order (the Go struct's, not numbers').
	// Like occs, the table is a stack that nested messages grow past.
	sb := len(t.spans)
	t.spans = slices.Grow(t.spans, int(maxNums[mi])+1)[:sb+int(maxNums[mi])+1]
	clear(t.spans[sb:])
	defer func() { t.spans = t.spans[:sb] }()
	for j, o := range occs {
		if o.num <= maxNums[mi] {
			s := &t.spans[sb+int(o.num)]
			if s.hi == 0 {
				s.lo = int32(j)
			}
			s.hi = int32(j + 1)
		}
	}
	for i := range messages[mi].fields {
		f := &messages[mi].fields[i]
		if f.num < 64 && skip&(1<<f.num) != 0 {
			continue
		}
		s := t.spans[sb+int(f.num)]
		if err := t.field(o, f, occs[s.lo:s.hi]); err != nil {
			return err
		}
		if err := t.checkSize(); err != nil {
			return err
		}
	}
	return nil
}

// field writes one field from its occurrences, none when it is absent.
func (t *Transcoder) field(o *jsonx.ObjectWriter, f *field, os []occ) error {
	switch {
	case f.inline:
		v := last(os, f)
		return t.members(o, f.msg, v.data, v.at)
	case f.repeated || f.isMap || f.pointer:
		if len(os) == 0 {
			if !f.omitEmpty {
				o.FieldKey(f.key)
				t.w.Null()
			}
			return nil
		}
		o.FieldKey(f.key)
		switch {
		case f.repeated:
			return t.array(f, os)
		case f.isMap:
			return t.mapEntries(f, os)
		}
		return t.value(f, os[len(os)-1])
	}
	v := last(os, f)
	if f.omitEmpty && isEmpty(f, v) || f.omitZero && isZeroTime(v) {
		return nil
	}
	o.FieldKey(f.key)
	return t.value(f, v)
}

// last is the value of a singular field: its last occurrence, as protobuf
// has it, or the zero value of its kind when it is absent.
func last(os []occ, f *field) occ {
	if len(os) > 0 {
		return os[len(os)-1]
	}
	w := uint8(wireBytes)
	switch f.kind {
	case kindBool, kindInt32, kindInt64:
		w = wireVarint
	case kindDouble:
		w = wireFixed64
	}
	return occ{num: f.num, wire: w}
}

// isEmpty is encoding/json's omitempty test for a non-pointer field; it never
// holds for a struct.
func isEmpty(f *field, v occ) bool {
	switch f.kind {
	case kindString, kindBytes:
		return len(v.data) == 0
	case kindMessage:
		return false
	}
	return v.val == 0
}

// isZeroTime is omitzero on a timestamp (the only type the generator lets
// carry it): an empty message is the zero time.
func isZeroTime(v occ) bool { return len(v.data) == 0 }

func (t *Transcoder) array(f *field, os []occ) error {
	a := t.w.BeginArray()
	for _, v := range os {
		if v.wire == wireBytes && f.kind != kindString && f.kind != kindBytes && f.kind != kindMessage {
			// Packed scalars: one length-delimited run of values.
			if err := t.packed(&a, f, v); err != nil {
				return err
			}
			continue
		}
		a.Next()
		if err := t.value(f, v); err != nil {
			return err
		}
		if err := t.checkSize(); err != nil {
			return err
		}
	}
	a.End()
	return nil
}

func (t *Transcoder) packed(a *jsonx.ArrayWriter, f *field, v occ) error {
	for p := 0; p < len(v.data); {
		x, n := uvarint(v.data[p:])
		if n <= 0 || f.kind == kindDouble {
			return &SyntaxError{Offset: v.at + int64(p), Msg: "malformed packed field " + f.json}
		}
		a.Next()
		if err := t.value(f, occ{num: v.num, wire: wireVarint, val: x}); err != nil {
			return err
		}
		if err := t.checkSize(); err != nil {
			return err
		}
		p += n
	}
	return nil
}

// mapEntries writes a map's entries {1 key, 2 value} as an object with its
// keys sorted, as encoding/json writes a Go map; a key given twice keeps its
// last value.
func (t *Transcoder) mapEntries(f *field, os []occ) error {
	// t.entries is a stack, like t.occs: a value may hold a map of its own.
	eb := len(t.entries)
	defer func() { t.entries = t.entries[:eb] }()
	for _, e := range os {
		if e.wire != wireBytes {
			return wireErr(f, e)
		}
		start := len(t.occs)
		kv, err := scanFields(t.occs, e.data, e.at)
		t.occs = kv[:start]
		if err != nil {
			return err
		}
		ent := mapEntry{val: last(nil, f)}
		for _, x := range kv[start:] {
			switch x.num {
			case 1:
				if x.wire != wireBytes {
					return &SyntaxError{Offset: x.at, Msg: "map key of " + f.json + " is not a string"}
				}
				ent.key = x.data
			case 2:
				ent.val = x
			}
		}
		t.entries = append(t.entries, ent)
	}
	slices.SortStableFunc(t.entries[eb:], func(a, b mapEntry) int { return bytes.Compare(a.key, b.key) })
	// A key is bytes of the input: AppendQuote writes it as it is, where the
	// Writer's Field would want a string made of it.
	sep := byte('{')
	for i := eb; i < len(t.entries); i++ {
		e := t.entries[i]
		if i+1 < len(t.entries) && bytes.Equal(t.entries[i+1].key, e.key) {
			continue
		}
		t.str = jsonx.AppendQuote(append(t.str[:0], sep), e.key)
		t.w.Raw(append(t.str, ':'))
		sep = ','
		if err := t.value(f, e.val); err != nil {
			return err
		}
		if err := t.checkSize(); err != nil {
			return err
		}
	}
	if sep == '{' {
		t.w.Raw([]byte("{}"))
	} else {
		t.w.Raw([]byte("}"))
	}
	return nil
}

// string writes s as the server would.
func (t *Transcoder) string(s []byte) {
	t.str = jsonx.AppendQuote(t.str[:0], s)
	t.w.Raw(t.str)
}

// value writes one value of f's kind.
func (t *Transcoder) value(f *field, v occ) error {
	want := uint8(wireVarint)
	switch f.kind {
	case kindString, kindBytes, kindMessage:
		want = wireBytes
	case kindDouble:
		want = wireFixed64
	}
	if v.wire != want {
		return wireErr(f, v)
	}
	switch f.kind {
	case kindString:
		t.string(v.data)
	case kindBytes:
		// Base64 holds nothing a JSON string escapes.
		t.str = append(base64.StdEncoding.AppendEncode(append(t.str[:0], '"'), v.data), '"')
		t.w.Raw(t.str)
	case kindBool:
		t.w.Bool(v.val != 0)
	case kindInt32:
		t.w.Int64(int64(int32(v.val)))
	case kindInt64:
		t.w.Int64(int64(v.val))
	case kindDouble:
		return t.double(f, v)
	case kindMessage:
		return t.message(f.msg, v.data, v.at)
	}
	return nil
}

func wireErr(f *field, v occ) error {
	return &SyntaxError{Offset: v.at, Msg: fmt.Sprintf("field %s (%d) has wire type %d", f.json, f.num, v.wire)}
}
