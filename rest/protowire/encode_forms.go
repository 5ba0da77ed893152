package protowire

import (
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/protoenc"
)

// The forms, the other way: a message whose JSON is one scalar, written as
// the fields its Go type's Marshal writes.

// rfc3339Micro is MicroTime's JSON layout.
const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// form appends the content of the special message mi from the JSON value v.
func (e *encoder) form(b []byte, mi int, v int32) ([]byte, error) {
	null := e.null(v)
	switch messages[mi].form {
	case formTime, formMicroTime:
		if null {
			return b, nil // the zero time: an empty message
		}
		return e.timestamp(b, messages[mi].form, v)
	case formDuration:
		var d time.Duration
		if !null {
			s, err := e.scalarString(v, "a duration string")
			if err != nil {
				return b, err
			}
			if d, err = time.ParseDuration(string(s)); err != nil {
				return b, &SchemaError{Offset: e.offset(v), Reason: "malformed duration " + strconv.Quote(string(s))}
			}
		}
		return protoenc.AppendVarintField(b, 1, uint64(d)), nil
	case formQuantity:
		if null {
			return protoenc.AppendBytesField(b, 1, []byte("0")), nil
		}
		if c := e.first(v); c == '-' || c >= '0' && c <= '9' {
			// A quantity may be given as a JSON number; its text is the quantity.
			return protoenc.AppendBytesField(b, 1, e.raw(v)), nil
		}
		s, err := e.scalarString(v, "a quantity")
		if err != nil {
			return b, err
		}
		return protoenc.AppendBytesField(b, 1, s), nil
	case formIntOrString:
		return e.intOrString(b, v)
	}
	return b, &SchemaError{Offset: e.offset(v), Reason: "no encoding for " + messages[mi].name}
}

// scalarString reads the string v into the arena (popped by the caller's
// next use); the result is valid until the arena grows.
func (e *encoder) scalarString(v int32, want string) ([]byte, error) {
	if e.first(v) != '"' {
		return nil, e.wrongType(v, want)
	}
	lo := len(e.arena)
	e.at(v)
	e.arena = e.r.AppendString(e.arena)
	s := e.arena[lo:]
	e.arena = e.arena[:lo]
	return s, e.r.Err()
}

// timestamp writes a Time or MicroTime: seconds (1) and nanos (2), both
// always. A Time keeps whole seconds, as its Marshal does (its JSON holds no
// more); the zero time is an empty message.
func (e *encoder) timestamp(b []byte, f form, v int32) ([]byte, error) {
	s, err := e.scalarString(v, "an RFC 3339 time")
	if err != nil {
		return b, err
	}
	layout := time.RFC3339
	if f == formMicroTime {
		layout = rfc3339Micro
	}
	t, perr := time.Parse(layout, string(s))
	if perr != nil {
		return b, &SchemaError{Offset: e.offset(v), Reason: "malformed time " + strconv.Quote(string(s))}
	}
	if t.IsZero() {
		return b, nil
	}
	var nanos int32
	if f == formMicroTime {
		nanos = int32(t.Nanosecond())
	}
	b = protoenc.AppendVarintField(b, 1, uint64(t.Unix()))
	return protoenc.AppendVarintField(b, 2, uint64(int64(nanos))), nil
}

// intOrString writes type (1), intVal (2) and strVal (3), all three always,
// from a JSON number (type 0) or string (type 1).
func (e *encoder) intOrString(b []byte, v int32) ([]byte, error) {
	var typ uint64
	var n int64
	var s []byte
	switch {
	case e.null(v):
	case e.first(v) == '"':
		typ = 1
		var err error
		if s, err = e.scalarString(v, "a string"); err != nil {
			return b, err
		}
	default:
		var err error
		if n, err = e.integer(&field{kind: kindInt32}, v); err != nil {
			return b, err
		}
	}
	b = protoenc.AppendVarintField(b, 1, typ)
	b = protoenc.AppendVarintField(b, 2, uint64(n))
	return protoenc.AppendBytesField(b, 3, s), nil
}
