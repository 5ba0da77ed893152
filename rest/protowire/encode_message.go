package protowire

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"math"
	"slices"
	"strconv"

	"github.com/podwatch/podwatch/internal/protoenc"
)

// layout is how the encoder finds a message's fields among JSON members. An
// inline (embedded) message's members sit in its parent's object, so a
// message's slots are its own fields' and, after them, those of each inline
// message, flattened: one scan of the object fills them all.
type layout struct {
	byName map[string]int32 // member name -> slot
	slot   []int32          // fields[i]'s slot; for an inline field, where its message's slots begin
	nslots int32
	order  []int // field indices in field-number order, the order they are written in
	root   bool  // an object of its own (Pod, Status): kind and apiVersion are its type, not fields
}

var layouts = func() []layout {
	ls := make([]layout, len(messages))
	done := make([]bool, len(messages))
	var build func(mi int)
	build = func(mi int) {
		if done[mi] {
			return
		}
		done[mi] = true
		fs := messages[mi].fields
		l := layout{byName: map[string]int32{}, slot: make([]int32, len(fs)), nslots: int32(len(fs))}
		for i, f := range fs {
			l.slot[i] = int32(i)
			if !f.inline {
				l.byName[f.json] = int32(i)
			}
		}
		for i, f := range fs {
			if !f.inline {
				continue
			}
			build(f.msg)
			child := &ls[f.msg]
			l.slot[i] = l.nslots
			for name, s := range child.byName {
				if _, taken := l.byName[name]; !taken { // the shallower field wins, as in Go
					l.byName[name] = l.nslots + s
				}
			}
			l.nslots += child.nslots
		}
		l.order = make([]int, len(fs))
		for i := range l.order {
			l.order[i] = i
		}
		slices.SortStableFunc(l.order, func(a, b int) int { return cmp.Compare(fs[a].num, fs[b].num) })
		ls[mi] = l
	}
	for mi := range messages {
		build(mi)
	}
	for _, mi := range roots {
		ls[mi].root = true
	}
	return ls
}()

// message appends the content of message mi (no key, no length) from the
// JSON value v: absent or null is the zero value.
func (e *encoder) message(b []byte, mi int, v int32, depth int) ([]byte, error) {
	if depth > maxDepth {
		return b, &SchemaError{Offset: e.offset(v), Reason: "messages nested too deeply"}
	}
	switch messages[mi].form {
	case formObject:
		base := int32(len(e.spans))
		e.spans = slices.Grow(e.spans, int(layouts[mi].nslots))[:int(base+layouts[mi].nslots)]
		for i := base; i < int32(len(e.spans)); i++ {
			e.spans[i] = absent
		}
		defer func() { e.spans = e.spans[:base] }()
		if err := e.scanObject(mi, v, base); err != nil {
			return b, err
		}
		return e.fields(b, mi, base, depth)
	case formList:
		return e.repeated(b, &messages[mi].fields[0], v, depth)
	case formRawJSON:
		if e.null(v) {
			return b, nil
		}
		return protoenc.AppendBytesField(b, 1, e.raw(v)), nil
	}
	return e.form(b, mi, v)
}

// null reports whether v is absent or null.
func (e *encoder) null(v int32) bool {
	return v == absent || e.doc[e.nodes[v].lo] == 'n'
}

// first is the first byte of v, which is not absent.
func (e *encoder) first(v int32) byte { return e.doc[e.nodes[v].lo] }

// raw is v's bytes.
func (e *encoder) raw(v int32) []byte { return e.doc[e.nodes[v].lo:e.nodes[v].hi] }

func (e *encoder) offset(v int32) int64 {
	if v == absent {
		return 0
	}
	return int64(e.nodes[v].lo)
}

// at points the reader at the value v.
func (e *encoder) at(v int32) {
	e.r.Reset(e.raw(v))
	e.r.Base = int64(e.nodes[v].lo)
}

// wrongType is a value of a JSON type the field cannot hold.
func (e *encoder) wrongType(v int32, want string) error {
	return &SchemaError{Offset: e.offset(v), Reason: "want " + want + ", found " + describe(e.first(v))}
}

func describe(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// scanObject records which member of object v is each field of message
// mi, in the slots that start at base.
func (e *encoder) scanObject(mi int, v int32, base int32) error {
	if e.null(v) {
		return nil
	}
	if e.first(v) != '{' {
		return e.wrongType(v, "an object")
	}
	l := &layouts[mi]
	for c := e.nodes[v].first; c != absent; c = e.nodes[c].next {
		key := e.key(c)
		s, ok := l.byName[string(key)]
		if !ok {
			if l.root && (string(key) == "kind" || string(key) == "apiVersion") {
				continue
			}
			return &SchemaError{Path: string(key), Offset: e.offset(c), Reason: "no such field in " + messages[mi].name}
		}
		e.spans[base+s] = c // a member given twice keeps its last value, as in encoding/json
	}
	return nil
}

// fields appends the fields of message mi, whose slots start at base, in
// field-number order.
func (e *encoder) fields(b []byte, mi int, base int32, depth int) ([]byte, error) {
	l := &layouts[mi]
	for _, i := range l.order {
		f := &messages[mi].fields[i]
		var err error
		if f.inline {
			b = appendKey(b, f.num, wireBytes)
			var mark int
			b, mark = beginLen(b)
			if b, err = e.fields(b, f.msg, base+l.slot[i], depth+1); err != nil {
				return b, err
			}
			b = endLen(b, mark)
			continue
		}
		v := e.spans[base+l.slot[i]]
		switch {
		case f.repeated:
			b, err = e.repeated(b, f, v, depth)
		case f.isMap:
			b, err = e.mapField(b, f, v, depth)
		case f.pointer && e.null(v):
		case f.kind == kindBytes && e.null(v): // a nil []byte is not written
		default:
			b, err = e.value(b, f, v, depth)
		}
		if err != nil {
			return b, prefix(err, f.json)
		}
	}
	return b, nil
}

// repeated appends each element of the array v as an occurrence of f.
func (e *encoder) repeated(b []byte, f *field, v int32, depth int) ([]byte, error) {
	if e.null(v) {
		return b, nil
	}
	if e.first(v) != '[' {
		return b, e.wrongType(v, "an array")
	}
	j := 0
	for c := e.nodes[v].first; c != absent; c = e.nodes[c].next {
		var err error
		if b, err = e.value(b, f, c, depth); err != nil {
			return b, prefix(err, "["+strconv.Itoa(j)+"]")
		}
		j++
	}
	return b, nil
}

// mapField appends the object v as map entries {1 key, 2 value} in sorted
// key order, as the apiserver writes a Go map; a key given twice keeps its
// last value, as a Go map does.
func (e *encoder) mapField(b []byte, f *field, v int32, depth int) ([]byte, error) {
	if e.null(v) {
		return b, nil
	}
	if e.first(v) != '{' {
		return b, e.wrongType(v, "an object")
	}
	base := len(e.keys)
	defer func() { e.keys = e.keys[:base] }()
	for c := e.nodes[v].first; c != absent; c = e.nodes[c].next {
		e.keys = append(e.keys, c)
	}
	keys := e.keys[base:]
	if !slices.IsSortedFunc(keys, e.byKey) {
		slices.SortStableFunc(keys, e.byKey)
	}
	entry := field{num: 2, json: f.json, kind: f.kind, msg: f.msg}
	for j, c := range keys {
		key := e.key(c)
		if j+1 < len(keys) && bytes.Equal(e.key(keys[j+1]), key) {
			continue
		}
		b = appendKey(b, f.num, wireBytes)
		var mark int
		b, mark = beginLen(b)
		b = protoenc.AppendBytesField(b, 1, key)
		var err error
		if b, err = e.value(b, &entry, c, depth); err != nil {
			return b, prefix(err, "["+strconv.Quote(string(key))+"]")
		}
		b = endLen(b, mark)
	}
	return b, nil
}

func (e *encoder) byKey(x, y int32) int { return bytes.Compare(e.key(x), e.key(y)) }

// value appends one occurrence of f (key and value) from the JSON value v;
// absent or null is the zero value of f's kind.
func (e *encoder) value(b []byte, f *field, v int32, depth int) ([]byte, error) {
	null := e.null(v)
	switch f.kind {
	case kindString:
		b = appendKey(b, f.num, wireBytes)
		if null {
			return append(b, 0), nil
		}
		if e.first(v) != '"' {
			return b, e.wrongType(v, "a string")
		}
		var mark int
		b, mark = beginLen(b)
		e.at(v)
		b = e.r.AppendString(b)
		return endLen(b, mark), e.r.Err()
	case kindBytes:
		b = appendKey(b, f.num, wireBytes)
		if null {
			return append(b, 0), nil
		}
		return e.base64(b, v)
	case kindBool:
		var x uint64
		if !null {
			if c := e.first(v); c != 't' && c != 'f' {
				return b, e.wrongType(v, "a boolean")
			}
			e.at(v)
			if e.r.Bool() {
				x = 1
			}
		}
		return protoenc.AppendVarintField(b, int(f.num), x), e.r.Err()
	case kindInt32, kindInt64:
		x, err := e.integer(f, v)
		return protoenc.AppendVarintField(b, int(f.num), uint64(x)), err
	case kindDouble:
		x, err := e.double(v)
		b = appendKey(b, f.num, wireFixed64)
		return binaryAppendFixed64(b, math.Float64bits(x)), err
	}
	b = appendKey(b, f.num, wireBytes)
	b, mark := beginLen(b)
	b, err := e.message(b, f.msg, v, depth+1)
	return endLen(b, mark), err
}

func (e *encoder) integer(f *field, v int32) (int64, error) {
	if e.null(v) {
		return 0, nil
	}
	if c := e.first(v); c != '-' && (c < '0' || c > '9') {
		return 0, e.wrongType(v, "an integer")
	}
	x, err := strconv.ParseInt(string(e.raw(v)), 10, 64)
	if err != nil || f.kind == kindInt32 && (x < math.MinInt32 || x > math.MaxInt32) {
		width := "64"
		if f.kind == kindInt32 {
			width = "32"
		}
		return 0, &SchemaError{Offset: e.offset(v), Reason: "want a " + width + "-bit integer, found " + string(e.raw(v))}
	}
	return x, nil
}

func (e *encoder) double(v int32) (float64, error) {
	if e.null(v) {
		return 0, nil
	}
	if c := e.first(v); c != '-' && (c < '0' || c > '9') {
		return 0, e.wrongType(v, "a number")
	}
	x, err := strconv.ParseFloat(string(e.raw(v)), 64)
	if err != nil {
		return 0, &SchemaError{Offset: e.offset(v), Reason: "want a float64, found " + string(e.raw(v))}
	}
	return x, nil
}

// base64 appends the length and the bytes a base64 string holds, which
// encoding/json reads as a []byte.
func (e *encoder) base64(b []byte, v int32) ([]byte, error) {
	if e.first(v) != '"' {
		return b, e.wrongType(v, "a base64 string")
	}
	lo := len(e.arena)
	e.at(v)
	e.arena = e.r.AppendString(e.arena)
	if err := e.r.Err(); err != nil {
		return b, err
	}
	text := e.arena[lo:]
	n := base64.StdEncoding.DecodedLen(len(text))
	b, mark := beginLen(b)
	b = slices.Grow(b, n)
	out, err := base64.StdEncoding.AppendDecode(b, text)
	e.arena = e.arena[:lo]
	if err != nil {
		return b, &SchemaError{Offset: e.offset(v), Reason: "malformed base64: " + err.Error()}
	}
	return endLen(out, mark), nil
}

func binaryAppendFixed64(b []byte, x uint64) []byte {
	return append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}
