package protowire

import (
	"encoding/binary"
	"fmt"

	"github.com/podwatch/podwatch/internal/protoenc"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// encoder writes an object given as the apiserver's JSON as the protobuf the
// apiserver sends for it: the inverse of the Transcoder. It writes what the
// v1.37 apiserver's generated marshallers write, checked byte for byte
// against a pod it sent:
//
//   - fields in field-number order (not the JSON's member order);
//   - every field that is not a Go pointer, slice or map, even when empty or
//     absent from the JSON (JSON omits empty ones; the Go structs hold them
//     as zero values, which protobuf writes): an empty string, a zero, an
//     empty message, all of a message's own such fields recursively;
//   - pointers only when the JSON holds a value (null is nil);
//   - slices element by element, maps as entries {1 key, 2 value} in sorted
//     key order;
//   - the special forms from their JSON: Time to whole seconds (nanos 0, an
//     empty message for the zero time), MicroTime with its microseconds,
//     Duration from Go's duration string, Quantity as its string (the
//     apiserver's JSON already holds the canonical form), IntOrString by the
//     JSON value's type, FieldsV1 and RawExtension as their JSON bytes;
//   - strings as jsonx decodes them: invalid UTF-8 in the JSON as U+FFFD, as
//     the apiserver's JSON decoding has it before the object is stored.
//
// JSON the schema cannot hold is a *SchemaError naming the member; malformed
// JSON a *jsonx.SyntaxError. The zero encoder is ready; it reuses its scratch
// space and is not safe for concurrent use. Podwatch's servers reach it as a
// protoenc.Encoder (internal/protoenc): writing protobuf is no part of the
// public API.
type encoder struct {
	doc   []byte
	r     jsonx.Reader
	nodes []jnode // the document's values, indexed in one pass
	spans []int32 // the members of the messages being written, a stack
	keys  []int32 // the entries of the maps being written, a stack
	arena []byte  // member keys, unescaped, then scratch strings
}

// jnode is one value of the document. The document is read once, into
// these, so that writing fields in number order (not the JSON's order)
// never reads a value twice.
type jnode struct {
	lo, hi   int32 // the value's bytes in the document
	klo, khi int32 // an object member's key, unescaped, in the arena
	first    int32 // a container's first member or element; -1 none
	next     int32 // the next member or element of the same container; -1 none
}

// absent is the node of a member the object does not hold.
const absent = -1

// SchemaError is JSON the schema cannot hold: a member the message has no
// field for, a value of the wrong JSON type, a number out of its field's
// range, a malformed timestamp. Path names the member from the object's root
// (spec.containers[0].ports[1].containerPort); Offset is the byte offset of
// the value in the JSON.
type SchemaError struct {
	Path   string
	Offset int64
	Reason string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("protobuf: cannot encode %s (byte %d): %s", e.Path, e.Offset, e.Reason)
}

// prefix puts seg before the path of err when err is a *SchemaError: each
// level of the encoder adds its own member on the way out, so a path costs
// nothing unless an error happens.
func prefix(err error, seg string) error {
	if se, ok := err.(*SchemaError); ok {
		switch {
		case se.Path == "":
			se.Path = seg
		case se.Path[0] == '[':
			se.Path = seg + se.Path
		default:
			se.Path = seg + "." + se.Path
		}
	}
	return err
}

// encode appends to b the message m encoded in data, the JSON of one m (a
// list item, say). On an error, what it appended is garbage: callers keep
// their own b.
func (e *encoder) encode(b []byte, m Message, data []byte) ([]byte, error) {
	root, err := e.load(data)
	if err != nil {
		return b, err
	}
	return e.message(b, m.i, root, 0)
}

// load indexes data, a JSON document, and returns its root.
func (e *encoder) load(data []byte) (int32, error) {
	if len(data) > 1<<31-1 {
		return absent, &SchemaError{Reason: "JSON longer than 2 GiB"}
	}
	e.doc = data
	e.nodes, e.spans, e.keys, e.arena = e.nodes[:0], e.spans[:0], e.keys[:0], e.arena[:0]
	e.r.Reset(data)
	root := e.index()
	if err := e.r.Err(); err != nil {
		return absent, err
	}
	if !e.r.AtEnd() {
		return absent, &SchemaError{Offset: int64(e.r.Pos()), Reason: "data after the object"}
	}
	return root, nil
}

// index reads the next value into nodes, its members and elements too.
func (e *encoder) index() int32 {
	c := e.r.Kind()
	i := int32(len(e.nodes))
	e.nodes = append(e.nodes, jnode{lo: int32(e.r.Pos()), first: absent, next: absent})
	last := int32(absent)
	link := func(child int32) {
		if last == absent {
			e.nodes[i].first = child
		} else {
			e.nodes[last].next = child
		}
		last = child
	}
	switch c {
	case '{':
		e.r.Object(func(key []byte) {
			klo := int32(len(e.arena))
			e.arena = append(e.arena, key...)
			khi := int32(len(e.arena))
			child := e.index()
			e.nodes[child].klo, e.nodes[child].khi = klo, khi
			link(child)
		})
	case '[':
		e.r.Array(func() { link(e.index()) })
	default:
		e.r.Skip()
	}
	e.nodes[i].hi = int32(e.r.Pos())
	return i
}

// key is member v's key.
func (e *encoder) key(v int32) []byte { return e.arena[e.nodes[v].klo:e.nodes[v].khi] }

// member finds the member named name of object v.
func (e *encoder) member(v int32, name string) int32 {
	if v == absent || e.doc[e.nodes[v].lo] != '{' {
		return absent
	}
	found := int32(absent)
	for c := e.nodes[v].first; c != absent; c = e.nodes[c].next {
		if string(e.key(c)) == name {
			found = c // the last one, as encoding/json keeps
		}
	}
	return found
}

// Envelope appends to b the envelope of the object in data, whose kind and
// apiVersion members name its message: Magic, then the Unknown holding the
// type, the message and the empty contentEncoding and contentType the
// apiserver writes. A kind the schema does not hold is a *KindError.
func (e *encoder) Envelope(b []byte, data []byte) ([]byte, error) {
	root, err := e.load(data)
	if err != nil {
		return b, err
	}
	return e.envelope(b, root)
}

func (e *encoder) envelope(b []byte, v int32) ([]byte, error) {
	if e.doc[e.nodes[v].lo] != '{' {
		return b, e.wrongType(v, "an object")
	}
	apiVersion, err := e.stringMember(v, "apiVersion")
	if err != nil {
		return b, err
	}
	kind, err := e.stringMember(v, "kind")
	if err != nil {
		return b, err
	}
	m, ok := Root(string(kind))
	if !ok {
		return b, &KindError{APIVersion: string(apiVersion), Kind: string(kind)}
	}
	start := len(b)
	b = append(b, Magic...)
	b = appendKey(b, 1, wireBytes)
	b, tm := beginLen(b)
	b = protoenc.AppendBytesField(b, 1, apiVersion)
	b = protoenc.AppendBytesField(b, 2, kind)
	b = endLen(b, tm)
	b = appendKey(b, 2, wireBytes)
	b, mark := beginLen(b)
	if b, err = e.message(b, m.i, v, 0); err != nil {
		return b[:start], err
	}
	b = endLen(b, mark)
	b = protoenc.AppendBytesField(b, 3, nil)
	return protoenc.AppendBytesField(b, 4, nil), nil
}

// stringMember reads object v's string member name, "" when absent.
func (e *encoder) stringMember(v int32, name string) ([]byte, error) {
	m := e.member(v, name)
	if e.null(m) {
		return nil, nil
	}
	if e.doc[e.nodes[m].lo] != '"' {
		return nil, prefix(e.wrongType(m, "a string"), name)
	}
	lo := len(e.arena)
	e.at(m)
	e.arena = e.r.AppendString(e.arena) // kept: kind and apiVersion are read together
	return e.arena[lo:], e.r.Err()
}

// WatchFrame appends to b one frame of a protobuf watch: the 4-byte
// big-endian length, then a WatchEvent of type typ whose object is a
// RawExtension holding the envelope of object (JSON).
func (e *encoder) WatchFrame(b []byte, typ string, object []byte) ([]byte, error) {
	root, err := e.load(object)
	if err != nil {
		return b, err
	}
	return watchFrame(e, b, typ, root)
}

// EventFrame is WatchFrame for a JSON watch event {"type":T,"object":O}.
func (e *encoder) EventFrame(b []byte, event []byte) ([]byte, error) {
	root, err := e.load(event)
	if err != nil {
		return b, err
	}
	if e.doc[e.nodes[root].lo] != '{' {
		return b, e.wrongType(root, "a watch event object")
	}
	obj := e.member(root, "object")
	if e.null(obj) {
		return b, &SchemaError{Path: "object", Reason: "watch event without an object"}
	}
	typ, err := e.stringMember(root, "type")
	if err != nil {
		return b, err
	}
	out, err := watchFrame(e, b, typ, obj)
	return out, prefix(err, "object")
}

func watchFrame[T string | []byte](e *encoder, b []byte, typ T, object int32) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = appendKey(b, 1, wireBytes)
	b = protoenc.AppendVarint(b, uint64(len(typ)))
	b = append(b, typ...) // before the arena typ may sit in is reused
	b = appendKey(b, 2, wireBytes)
	b, ext := beginLen(b)
	b = appendKey(b, 1, wireBytes)
	b, env := beginLen(b)
	var err error
	if b, err = e.envelope(b, object); err != nil {
		return b[:start], err
	}
	b = endLen(endLen(b, env), ext)
	n := len(b) - start - 4
	if uint64(n) > 1<<32-1 {
		return b[:start], &SchemaError{Reason: "watch event longer than 4 GiB"}
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	return b, nil
}

// appendKey appends a field's key: its number and wire type.
func appendKey(b []byte, num int32, wire uint8) []byte {
	return protoenc.AppendVarint(b, uint64(num)<<3|uint64(wire))
}

// beginLen reserves one byte for the length of what follows; endLen writes
// it, moving the content when the length takes more than one byte. Most
// messages are short, so the move is rare and a size pass is never needed.
func beginLen(b []byte) ([]byte, int) { return append(b, 0), len(b) + 1 }

var zeros [9]byte

func endLen(b []byte, mark int) []byte {
	n := len(b) - mark
	if n < 0x80 {
		b[mark-1] = byte(n)
		return b
	}
	k := varintSize(uint64(n))
	b = append(b, zeros[:k-1]...)
	copy(b[mark-1+k:], b[mark:mark+n])
	binary.PutUvarint(b[mark-1:], uint64(n))
	return b
}

func varintSize(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func init() {
	protoenc.Register(func() protoenc.Encoder { return new(encoder) })
}

// Message is encode for a root kind's message (Pod, PodList, Status), as
// protoenc.Encoder has it.
func (e *encoder) Message(b []byte, kind string, data []byte) ([]byte, error) {
	m, ok := Root(kind)
	if !ok {
		return b, &KindError{Kind: kind}
	}
	return e.encode(b, m, data)
}
