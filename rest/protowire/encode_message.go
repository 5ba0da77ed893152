package protowire

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"math"
	"slices"
	"strconv"
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
// JSON value at sp: absent or null is the zero value.
func (e *Encoder) message(b []byte, mi int, sp vspan, depth int) ([]byte, error) {
	if depth > maxDepth {
		return b, &SchemaError{Offset: int64(sp.lo), Reason: "messages nested too deeply"}
	}
	switch messages[mi].form {
	case formObject:
		base := int32(len(e.spans))
		e.spans = slices.Grow(e.spans, int(layouts[mi].nslots))[:int(base+layouts[mi].nslots)]
		clear(e.spans[base:])
		defer func() { e.spans = e.spans[:base] }()
		if err := e.scanObject(mi, sp, base); err != nil {
			return b, err
		}
		return e.fields(b, mi, base, depth)
	case formList:
		return e.repeated(b, &messages[mi].fields[0], sp, depth)
	case formRawJSON:
		if e.null(sp) {
			return b, nil
		}
		return AppendBytesField(b, 1, e.doc[sp.lo:sp.hi]), nil
	}
	return e.form(b, mi, sp)
}

// null reports whether sp is absent or holds null.
func (e *Encoder) null(sp vspan) bool {
	return sp.absent() || e.doc[sp.lo] == 'n'
}

// at points the reader at the value sp.
func (e *Encoder) at(sp vspan) {
	e.r.Reset(e.doc[sp.lo:sp.hi])
	e.r.Base = int64(sp.lo)
}

// wrongType is a value of a JSON type the field cannot hold.
func (e *Encoder) wrongType(sp vspan, want string) error {
	return &SchemaError{Offset: int64(sp.lo), Reason: "want " + want + ", found " + describe(e.doc[sp.lo])}
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

// scanObject records where each member of the object at sp is, in the slots
// of message mi that start at base.
func (e *Encoder) scanObject(mi int, sp vspan, base int32) error {
	if e.null(sp) {
		return nil
	}
	if e.doc[sp.lo] != '{' {
		return e.wrongType(sp, "an object")
	}
	l := &layouts[mi]
	var bad error
	e.at(sp)
	e.r.Object(func(key []byte) {
		s, ok := l.byName[string(key)]
		if !ok || bad != nil {
			if bad == nil && !(l.root && (string(key) == "kind" || string(key) == "apiVersion")) {
				bad = &SchemaError{Path: string(key), Offset: e.r.Base + int64(e.r.Pos()), Reason: "no such field in " + messages[mi].name}
			}
			e.r.Skip()
			return
		}
		raw := e.r.Raw()
		end := int32(e.r.Base) + int32(e.r.Pos())
		e.spans[base+s] = vspan{end - int32(len(raw)), end}
	})
	if err := e.r.Err(); err != nil {
		return err
	}
	return bad
}

// fields appends the fields of message mi, whose slots start at base, in
// field-number order.
func (e *Encoder) fields(b []byte, mi int, base int32, depth int) ([]byte, error) {
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
		sp := e.spans[base+l.slot[i]]
		switch {
		case f.repeated:
			b, err = e.repeated(b, f, sp, depth)
		case f.isMap:
			b, err = e.mapField(b, f, sp, depth)
		case f.pointer && e.null(sp):
		case f.kind == kindBytes && e.null(sp): // a nil []byte is not written
		default:
			b, err = e.value(b, f, sp, depth)
		}
		if err != nil {
			return b, prefix(err, f.json)
		}
	}
	return b, nil
}

// repeated appends each element of the array at sp as an occurrence of f.
func (e *Encoder) repeated(b []byte, f *field, sp vspan, depth int) ([]byte, error) {
	if e.null(sp) {
		return b, nil
	}
	if e.doc[sp.lo] != '[' {
		return b, e.wrongType(sp, "an array")
	}
	// The elements' spans go on the stack first: writing one moves the reader.
	base := len(e.spans)
	defer func() { e.spans = e.spans[:base] }()
	e.at(sp)
	e.r.Array(func() {
		raw := e.r.Raw()
		end := int32(e.r.Base) + int32(e.r.Pos())
		e.spans = append(e.spans, vspan{end - int32(len(raw)), end})
	})
	if err := e.r.Err(); err != nil {
		return b, err
	}
	for j := base; j < len(e.spans); j++ {
		var err error
		if b, err = e.value(b, f, e.spans[j], depth); err != nil {
			return b, prefix(err, "["+strconv.Itoa(j-base)+"]")
		}
	}
	return b, nil
}

// mapField appends the object at sp as map entries {1 key, 2 value} in
// sorted key order, as the apiserver writes a Go map; a key given twice
// keeps its last value, as a Go map does.
func (e *Encoder) mapField(b []byte, f *field, sp vspan, depth int) ([]byte, error) {
	if e.null(sp) {
		return b, nil
	}
	if e.doc[sp.lo] != '{' {
		return b, e.wrongType(sp, "an object")
	}
	base := len(e.keys)
	defer func() { e.keys = e.keys[:base] }()
	e.at(sp)
	e.r.Object(func(key []byte) {
		lo := len(e.arena)
		e.arena = append(e.arena, key...)
		raw := e.r.Raw()
		end := int32(e.r.Base) + int32(e.r.Pos())
		e.keys = append(e.keys, mapKey{klo: int32(lo), khi: int32(len(e.arena)), val: vspan{end - int32(len(raw)), end}})
	})
	if err := e.r.Err(); err != nil {
		return b, err
	}
	keys := e.keys[base:]
	slices.SortStableFunc(keys, func(x, y mapKey) int {
		return bytes.Compare(e.arena[x.klo:x.khi], e.arena[y.klo:y.khi])
	})
	for j, k := range keys {
		key := e.arena[k.klo:k.khi]
		if j+1 < len(keys) && bytes.Equal(e.arena[keys[j+1].klo:keys[j+1].khi], key) {
			continue
		}
		b = appendKey(b, f.num, wireBytes)
		var mark int
		b, mark = beginLen(b)
		b = AppendBytesField(b, 1, key)
		entry := field{num: 2, json: f.json, kind: f.kind, msg: f.msg}
		var err error
		if b, err = e.value(b, &entry, k.val, depth); err != nil {
			return b, prefix(err, "["+strconv.Quote(string(key))+"]")
		}
		b = endLen(b, mark)
	}
	return b, nil
}

// value appends one occurrence of f (key and value) from the JSON at sp;
// absent or null is the zero value of f's kind.
func (e *Encoder) value(b []byte, f *field, sp vspan, depth int) ([]byte, error) {
	null := e.null(sp)
	switch f.kind {
	case kindString:
		b = appendKey(b, f.num, wireBytes)
		if null {
			return append(b, 0), nil
		}
		if e.doc[sp.lo] != '"' {
			return b, e.wrongType(sp, "a string")
		}
		var mark int
		b, mark = beginLen(b)
		e.at(sp)
		b = e.r.AppendString(b)
		return endLen(b, mark), e.r.Err()
	case kindBytes:
		b = appendKey(b, f.num, wireBytes)
		if null {
			return append(b, 0), nil
		}
		return e.base64(b, sp)
	case kindBool:
		var x uint64
		if !null {
			if c := e.doc[sp.lo]; c != 't' && c != 'f' {
				return b, e.wrongType(sp, "a boolean")
			}
			e.at(sp)
			if e.r.Bool() {
				x = 1
			}
		}
		return AppendVarintField(b, int(f.num), x), e.r.Err()
	case kindInt32, kindInt64:
		x, err := e.integer(f, sp)
		return AppendVarintField(b, int(f.num), uint64(x)), err
	case kindDouble:
		x, err := e.double(sp)
		b = appendKey(b, f.num, wireFixed64)
		return binaryAppendFixed64(b, math.Float64bits(x)), err
	}
	b = appendKey(b, f.num, wireBytes)
	b, mark := beginLen(b)
	b, err := e.message(b, f.msg, sp, depth+1)
	return endLen(b, mark), err
}

func (e *Encoder) integer(f *field, sp vspan) (int64, error) {
	if e.null(sp) {
		return 0, nil
	}
	if c := e.doc[sp.lo]; c != '-' && (c < '0' || c > '9') {
		return 0, e.wrongType(sp, "an integer")
	}
	x, err := strconv.ParseInt(string(e.doc[sp.lo:sp.hi]), 10, 64)
	if err != nil || f.kind == kindInt32 && (x < math.MinInt32 || x > math.MaxInt32) {
		width := "64"
		if f.kind == kindInt32 {
			width = "32"
		}
		return 0, &SchemaError{Offset: int64(sp.lo), Reason: "want a " + width + "-bit integer, found " + string(e.doc[sp.lo:sp.hi])}
	}
	return x, nil
}

func (e *Encoder) double(sp vspan) (float64, error) {
	if e.null(sp) {
		return 0, nil
	}
	if c := e.doc[sp.lo]; c != '-' && (c < '0' || c > '9') {
		return 0, e.wrongType(sp, "a number")
	}
	x, err := strconv.ParseFloat(string(e.doc[sp.lo:sp.hi]), 64)
	if err != nil {
		return 0, &SchemaError{Offset: int64(sp.lo), Reason: "want a float64, found " + string(e.doc[sp.lo:sp.hi])}
	}
	return x, nil
}

// base64 appends the length and the bytes a base64 string holds, which
// encoding/json reads as a []byte.
func (e *Encoder) base64(b []byte, sp vspan) ([]byte, error) {
	if e.doc[sp.lo] != '"' {
		return b, e.wrongType(sp, "a base64 string")
	}
	lo := len(e.arena)
	e.at(sp)
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
		return b, &SchemaError{Offset: int64(sp.lo), Reason: "malformed base64: " + err.Error()}
	}
	return endLen(out, mark), nil
}

func binaryAppendFixed64(b []byte, x uint64) []byte {
	return append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
}
