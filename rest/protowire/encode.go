package protowire

import (
	"encoding/binary"
	"fmt"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// Encoder writes an object given as the apiserver's JSON as the protobuf the
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
//     JSON value's type, FieldsV1 and RawExtension as their JSON bytes.
//
// JSON the schema cannot hold is a *SchemaError naming the member; malformed
// JSON a *jsonx.SyntaxError. The zero Encoder is ready; it reuses its scratch
// space and is not safe for concurrent use.
type Encoder struct {
	doc   []byte
	r     jsonx.Reader
	spans []vspan  // the members of the messages being written, a stack
	keys  []mapKey // the entries of the maps being written, a stack
	arena []byte   // map keys, unescaped
}

// vspan locates a JSON value in the document: [lo, hi), hi 0 when absent.
type vspan struct{ lo, hi int32 }

func (s vspan) absent() bool { return s.hi == 0 }

// mapKey is one entry of a map being written: its key in the arena and the
// span of its value.
type mapKey struct {
	klo, khi int32
	val      vspan
}

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

// Message appends to b the message m encoded in data, the JSON of one m (a
// list item, say). On an error, what it appended is garbage: callers keep
// their own b.
func (e *Encoder) Message(b []byte, m Message, data []byte) ([]byte, error) {
	if len(data) > 1<<31-1 {
		return b, &SchemaError{Reason: "JSON longer than 2 GiB"}
	}
	e.doc = data
	e.spans, e.keys, e.arena = e.spans[:0], e.keys[:0], e.arena[:0]
	e.r.Reset(data)
	e.r.Kind()
	lo := e.r.Pos()
	e.r.Skip()
	if err := e.r.Err(); err != nil {
		return b, err
	}
	if !e.r.AtEnd() {
		return b, &SchemaError{Offset: int64(e.r.Pos()), Reason: "data after the object"}
	}
	return e.message(b, m.i, vspan{int32(lo), int32(e.r.Pos())}, 0)
}

// Envelope appends to b the envelope of the object in data, whose kind and
// apiVersion members name its message: Magic, then the Unknown holding the
// type, the message and the empty contentEncoding and contentType the
// apiserver writes. A kind the schema does not hold is a *KindError.
func (e *Encoder) Envelope(b []byte, data []byte) ([]byte, error) {
	apiVersion, kind, err := e.typeMeta(data)
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
	b = AppendBytesField(b, 1, apiVersion)
	b = AppendBytesField(b, 2, kind)
	b = endLen(b, tm)
	b = appendKey(b, 2, wireBytes)
	b, mark := beginLen(b)
	if b, err = e.Message(b, m, data); err != nil {
		return b[:start], err
	}
	b = endLen(b, mark)
	b = AppendBytesField(b, 3, nil)
	return AppendBytesField(b, 4, nil), nil
}

// typeMeta reads the kind and apiVersion members of the object in data.
// What it returns aliases the encoder's scratch space.
func (e *Encoder) typeMeta(data []byte) (apiVersion, kind []byte, err error) {
	e.r.Reset(data)
	e.arena = e.arena[:0]
	var av, k vspan
	if e.r.Kind() != '{' {
		return nil, nil, &SchemaError{Offset: int64(e.r.Pos()), Reason: "want an object"}
	}
	e.r.Object(func(key []byte) {
		switch string(key) {
		case "apiVersion":
			av = e.arenaString()
		case "kind":
			k = e.arenaString()
		default:
			e.r.Skip()
		}
	})
	if err := e.r.Err(); err != nil {
		return nil, nil, err
	}
	return e.arena[av.lo:av.hi], e.arena[k.lo:k.hi], nil
}

// arenaString reads a string into the arena and returns where it is there.
func (e *Encoder) arenaString() vspan {
	lo := len(e.arena)
	e.arena = e.r.AppendString(e.arena)
	return vspan{int32(lo), int32(len(e.arena))}
}

// WatchFrame appends to b one frame of a protobuf watch: the 4-byte
// big-endian length, then a WatchEvent of type typ whose object is a
// RawExtension holding the envelope of object (JSON).
func (e *Encoder) WatchFrame(b []byte, typ string, object []byte) ([]byte, error) {
	return watchFrame(e, b, typ, object)
}

func watchFrame[T string | []byte](e *Encoder, b []byte, typ T, object []byte) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b = appendKey(b, 1, wireBytes)
	b = AppendVarint(b, uint64(len(typ)))
	b = append(b, typ...) // before Envelope reuses the arena typ may sit in
	b = appendKey(b, 2, wireBytes)
	b, ext := beginLen(b)
	b = appendKey(b, 1, wireBytes)
	b, env := beginLen(b)
	var err error
	if b, err = e.Envelope(b, object); err != nil {
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

// EventFrame is WatchFrame for a JSON watch event {"type":T,"object":O}.
func (e *Encoder) EventFrame(b []byte, event []byte) ([]byte, error) {
	e.r.Reset(event)
	e.arena = e.arena[:0]
	var typ, obj vspan
	if e.r.Kind() != '{' {
		return b, &SchemaError{Offset: int64(e.r.Pos()), Reason: "watch event: want an object"}
	}
	e.r.Object(func(key []byte) {
		switch string(key) {
		case "type":
			typ = e.arenaString()
		case "object":
			raw := e.r.Raw()
			obj = vspan{int32(e.r.Pos() - len(raw)), int32(e.r.Pos())}
		default:
			e.r.Skip()
		}
	})
	if err := e.r.Err(); err != nil {
		return b, err
	}
	if obj.absent() {
		return b, &SchemaError{Path: "object", Reason: "watch event without an object"}
	}
	out, err := watchFrame(e, b, e.arena[typ.lo:typ.hi], event[obj.lo:obj.hi])
	return out, prefix(err, "object")
}

// appendKey appends a field's key: its number and wire type.
func appendKey(b []byte, num int32, wire uint8) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(wire))
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
