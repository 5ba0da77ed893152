package protowire

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// The walk: a check of kept fields that writes nothing. A kept run is
// checked when it is read so that writing it later (Model.write, through
// the Transcoder) cannot fail. Transcoding the run and throwing the JSON
// away made that check cost as much as the writing: sorting each message's
// fields, escaping every string, formatting every time. The walk follows the
// Transcoder's rules over the same schema without any of that: it decodes
// keys, varints and lengths, descends into messages by the schema, checks
// the wire types the Transcoder checks, floats it would refuse and the JSON
// embedded in a FieldsV1 or RawExtension, and adds up a bound on the JSON's
// length for the Transcoder's Limit. Strings need no check: the JSON writes
// invalid UTF-8 as \ufffd, as the apiserver's own JSON does.
//
// The Transcoder stays the definition of what is valid and the one source of
// errors: the walk answers only where its answer is certain, and otherwise
// (a malformed run, fields out of order, a bound over the limit) the run is
// transcoded as before, which finds the error and its offset. Fields out of
// order matter because the Transcoder reads a singular field's last
// occurrence and a map key's last entry; the apiserver writes every message's
// fields in order of number and every map's keys sorted, so in what it sends
// each occurrence the walk meets is the one the Transcoder reads.

// verdict is what the walk concludes of a run.
type verdict uint8

const (
	valid     verdict = iota // the Transcoder takes the run
	invalid                  // the Transcoder refuses it
	undecided                // only the Transcoder can tell
)

// walker walks one run; its zero value is ready.
type walker struct {
	size  int // bound on the length of the JSON so far
	depth int
	json  jsonx.Reader // checks embedded JSON
}

// walkTables are the schema's facts the walk looks up, made on first use.
type walkTables struct {
	// byNum[mi][num] is the index in messages[mi].fields of field num, -1
	// for a number the message does not have.
	byNum [][]int16
	// empty[mi] is the length of the JSON of message mi with no fields:
	// what its absent fields are written as.
	empty []int
}

var tables = sync.OnceValue(func() *walkTables {
	t := &walkTables{byNum: make([][]int16, len(messages)), empty: make([]int, len(messages))}
	tc := &Transcoder{Limit: math.MaxInt}
	for mi := range messages {
		nums := make([]int16, maxNums[mi]+1)
		for i := range nums {
			nums[i] = -1
		}
		for j, f := range messages[mi].fields {
			nums[f.num] = int16(j)
		}
		t.byNum[mi] = nums
		js, err := tc.Message(Message{mi}, nil, 0)
		if err != nil {
			panic("protowire: the empty " + messages[mi].name + " does not transcode: " + err.Error())
		}
		t.empty[mi] = len(js)
	}
	return t
})

// walkRun checks a run of fields of message mi kept by a Model (no modelled
// field is among them) as Transcoder.fields would write it, whose JSON may
// be at most limit bytes.
func (w *walker) walkRun(mi int, run []byte, limit int) verdict {
	w.size, w.depth = 0, 0
	v := w.members(mi, run)
	w.json.Reset(nil) // holds none of the caller's bytes
	if v == valid && w.size > limit {
		return undecided
	}
	return v
}

// wireOcc is one field occurrence as the walk reads it: scanFields' occ
// without its offset, which only an error needs.
type wireOcc struct {
	num  int32
	wire uint8
	val  uint64
	data []byte
}

// readOcc reads the field at msg[p:], as scanFields does, and returns it and
// where the next starts; ok is false where scanFields fails.
func readOcc(msg []byte, p int) (o wireOcc, next int, ok bool) {
	key, n := binary.Uvarint(msg[p:])
	if n <= 0 {
		return o, 0, false
	}
	num := key >> 3
	if num == 0 || num > 1<<29-1 {
		return o, 0, false
	}
	o.num, o.wire = int32(num), uint8(key&7)
	p += n
	switch o.wire {
	case wireVarint:
		if o.val, n = binary.Uvarint(msg[p:]); n <= 0 {
			return o, 0, false
		}
		p += n
	case wireFixed64:
		if len(msg)-p < 8 {
			return o, 0, false
		}
		o.val = binary.LittleEndian.Uint64(msg[p:])
		p += 8
	case wireFixed32:
		if len(msg)-p < 4 {
			return o, 0, false
		}
		o.val = uint64(binary.LittleEndian.Uint32(msg[p:]))
		p += 4
	case wireBytes:
		l, n := binary.Uvarint(msg[p:])
		if n <= 0 {
			return o, 0, false
		}
		p += n
		if l > uint64(len(msg)-p) {
			return o, 0, false
		}
		o.data = msg[p : p+int(l)]
		p += int(l)
	default:
		return o, 0, false
	}
	return o, p, true
}

// numAt is the number of the field whose key starts at msg[p:], 0 when
// there is none.
func numAt(msg []byte, p int) int32 {
	if p >= len(msg) {
		return 0
	}
	if c := msg[p]; c < 0x80 {
		return int32(c >> 3)
	}
	key, n := binary.Uvarint(msg[p:])
	if n <= 0 || key>>3 > 1<<29-1 {
		return 0
	}
	return int32(key >> 3)
}

// givenAgain reports whether field num comes again in msg[p:], which
// scanFields would take whole.
func givenAgain(msg []byte, p int, num int32) bool {
	for p < len(msg) {
		o, next, ok := readOcc(msg, p)
		if !ok {
			return false
		}
		if o.num == num {
			return true
		}
		p = next
	}
	return false
}

// members checks the fields of message mi, as Transcoder.members writes them.
func (w *walker) members(mi int, data []byte) verdict {
	t := tables()
	w.size += t.empty[mi]
	nums := t.byNum[mi]
	fields := messages[mi].fields
	var prev int32
	var prevKey []byte // the last key of the map field prev, when it is one
	for p := 0; p < len(data); {
		var o wireOcc
		if c, l := data[p], 0; c < 0x80 && c&7 == wireBytes && c >= 1<<3 && p+1 < len(data) && data[p+1] < 0x80 {
			// A one-byte key and length, as most fields of a pod have:
			// read here rather than by a call.
			if l = int(data[p+1]); l > len(data)-p-2 {
				return invalid
			}
			o = wireOcc{num: int32(c >> 3), wire: wireBytes, data: data[p+2 : p+2+l]}
			p += 2 + l
		} else {
			var next int
			var ok bool
			if o, next, ok = readOcc(data, p); !ok {
				return invalid
			}
			p = next
		}
		if o.num < prev {
			return undecided // see the note on order above
		}
		same := o.num == prev
		prev = o.num
		if int(o.num) >= len(nums) || nums[o.num] < 0 {
			continue // a field newer than the schema: skipped
		}
		f := &fields[nums[o.num]]
		var v verdict
		switch {
		case f.isMap:
			var key []byte
			if key, v = w.mapEntry(f, o); v == valid && same && bytes.Compare(key, prevKey) <= 0 {
				v = undecided // a key given twice: which value counts?
			}
			prevKey = key
		case f.repeated:
			v = w.element(f, o)
		case numAt(data, p) == o.num:
			continue // not the last occurrence, which alone is written
		default:
			if v = w.single(f, o); v == invalid && givenAgain(data, p, o.num) {
				v = undecided // the later occurrence is the one written
			}
		}
		if v != valid {
			return v
		}
	}
	return valid
}

// single checks a singular field's value, as Transcoder.field does.
func (w *walker) single(f *field, o wireOcc) verdict {
	switch {
	case f.inline:
		// Written as its parent's members, whatever its wire type says.
		var data []byte
		if o.wire == wireBytes {
			data = o.data
		}
		return w.members(f.msg, data)
	case f.pointer:
	case f.omitEmpty && isEmpty(f, occ{wire: o.wire, val: o.val, data: o.data}),
		f.omitZero && len(o.data) == 0:
		return valid // left out
	}
	w.size += len(f.key) + 1
	return w.value(f, o)
}

// element checks one occurrence of a repeated field, as Transcoder.array
// does: a message, string or bytes value, or scalars, one or packed.
func (w *walker) element(f *field, o wireOcc) verdict {
	w.size += len(f.key) + 3
	if o.wire != wireBytes || f.kind == kindString || f.kind == kindBytes || f.kind == kindMessage {
		w.size++
		return w.value(f, o)
	}
	if f.kind == kindDouble && len(o.data) > 0 {
		return invalid
	}
	for p := 0; p < len(o.data); {
		_, n := binary.Uvarint(o.data[p:])
		if n <= 0 {
			return invalid
		}
		p += n
		w.size += 21 // a comma and an int64
	}
	return valid
}

// mapEntry checks one entry {1 key, 2 value} of a map, as
// Transcoder.mapEntries does, and returns its key.
func (w *walker) mapEntry(f *field, e wireOcc) ([]byte, verdict) {
	if e.wire != wireBytes {
		return nil, invalid
	}
	var key []byte
	val := wireOcc{}
	hasVal := false
	for p := 0; p < len(e.data); {
		x, next, ok := readOcc(e.data, p)
		if !ok {
			return nil, invalid
		}
		p = next
		switch x.num {
		case 1:
			if x.wire != wireBytes {
				return nil, invalid
			}
			key = x.data
		case 2:
			val, hasVal = x, true
		}
	}
	w.size += len(f.key) + 4 + 6*len(key)
	if !hasVal {
		z := last(nil, f)
		val = wireOcc{num: 2, wire: z.wire}
	}
	if v := w.value(f, val); v != valid {
		// A later entry with this key would take its place: only the
		// Transcoder can tell.
		return key, undecided
	}
	return key, valid
}

// value checks one value of f's kind, as Transcoder.value does.
func (w *walker) value(f *field, o wireOcc) verdict {
	switch f.kind {
	case kindString:
		if o.wire != wireBytes {
			return invalid
		}
		w.size += 2 + 6*len(o.data) // \u00XX is the longest escape of a byte
	case kindBytes:
		if o.wire != wireBytes {
			return invalid
		}
		w.size += 2 + (len(o.data)+2)/3*4
	case kindBool, kindInt32, kindInt64:
		if o.wire != wireVarint {
			return invalid
		}
		w.size += 20
	case kindDouble:
		if o.wire != wireFixed64 {
			return invalid
		}
		if x := math.Float64frombits(o.val); math.IsNaN(x) || math.IsInf(x, 0) {
			return invalid
		}
		w.size += 32
	case kindMessage:
		if o.wire != wireBytes {
			return invalid
		}
		return w.message(f.msg, o.data)
	}
	return valid
}

// message checks a message's value by its form, as Transcoder.message does.
func (w *walker) message(mi int, data []byte) verdict {
	if w.depth >= maxDepth {
		return invalid
	}
	w.depth++
	var v verdict
	switch messages[mi].form {
	case formObject:
		v = w.members(mi, data)
	case formRawJSON:
		v = w.rawJSON(data)
	case formList:
		v = w.list(mi, data)
	default:
		v = w.special(mi, data)
	}
	w.depth--
	return v
}

// rawJSON checks a FieldsV1's or RawExtension's raw bytes: its field 1, the
// last given, must hold one JSON value.
func (w *walker) rawJSON(data []byte) verdict {
	var raw []byte
	for p := 0; p < len(data); {
		o, next, ok := readOcc(data, p)
		if !ok {
			return invalid
		}
		p = next
		if o.num == 1 {
			if o.wire != wireBytes {
				return invalid
			}
			raw = o.data
		}
	}
	w.size += 4 + len(raw)
	if len(raw) == 0 {
		return valid
	}
	w.json.Reset(raw)
	w.json.Skip()
	if w.json.Err() != nil || !w.json.AtEnd() {
		return invalid
	}
	return valid
}

// list checks a named slice type's message: the items, field 1.
func (w *walker) list(mi int, data []byte) verdict {
	f := &messages[mi].fields[0]
	for p := 0; p < len(data); {
		o, next, ok := readOcc(data, p)
		if !ok {
			return invalid
		}
		p = next
		if o.num != 1 {
			continue
		}
		if v := w.element(f, o); v != valid {
			return v
		}
	}
	return valid
}

// special checks the forms written as one JSON scalar: their fields 1 to 3
// must have the wire types the form reads; their values cannot fail.
func (w *walker) special(mi int, data []byte) verdict {
	form := messages[mi].form
	for p := 0; p < len(data); {
		o, next, ok := readOcc(data, p)
		if !ok {
			return invalid
		}
		p = next
		if o.num < 4 && o.wire != formWire(form, o.num) {
			return invalid
		}
	}
	// A time of a far year, a duration, or a string of the data's bytes.
	w.size += 48 + 6*len(data)
	return valid
}
