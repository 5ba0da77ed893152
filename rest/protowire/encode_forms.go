package protowire

import (
	"strconv"
	"time"
)

// The forms, the other way: a message whose JSON is one scalar, written as
// the fields its Go type's Marshal writes.

// rfc3339Micro is MicroTime's JSON layout.
const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// form appends the content of the special message mi from the JSON at sp.
func (e *Encoder) form(b []byte, mi int, sp vspan) ([]byte, error) {
	null := e.null(sp)
	switch messages[mi].form {
	case formTime, formMicroTime:
		if null {
			return b, nil // the zero time: an empty message
		}
		return e.timestamp(b, messages[mi].form, sp)
	case formDuration:
		var d time.Duration
		if !null {
			s, err := e.scalarString(sp, "a duration string")
			if err != nil {
				return b, err
			}
			if d, err = time.ParseDuration(string(s)); err != nil {
				return b, &SchemaError{Offset: int64(sp.lo), Reason: "malformed duration " + strconv.Quote(string(s))}
			}
		}
		return AppendVarintField(b, 1, uint64(d)), nil
	case formQuantity:
		if null {
			return AppendBytesField(b, 1, []byte("0")), nil
		}
		if c := e.doc[sp.lo]; c == '-' || c >= '0' && c <= '9' {
			// A quantity may be given as a JSON number; its text is the quantity.
			return AppendBytesField(b, 1, e.doc[sp.lo:sp.hi]), nil
		}
		s, err := e.scalarString(sp, "a quantity")
		if err != nil {
			return b, err
		}
		return AppendBytesField(b, 1, s), nil
	case formIntOrString:
		return e.intOrString(b, sp)
	}
	return b, &SchemaError{Offset: int64(sp.lo), Reason: "no encoding for " + messages[mi].name}
}

// scalarString reads the string at sp into the arena (popped by the caller's
// next use); the result is valid until the arena grows.
func (e *Encoder) scalarString(sp vspan, want string) ([]byte, error) {
	if e.doc[sp.lo] != '"' {
		return nil, e.wrongType(sp, want)
	}
	lo := len(e.arena)
	e.at(sp)
	e.arena = e.r.AppendString(e.arena)
	s := e.arena[lo:]
	e.arena = e.arena[:lo]
	return s, e.r.Err()
}

// timestamp writes a Time or MicroTime: seconds (1) and nanos (2), both
// always. A Time keeps whole seconds, as its Marshal does (its JSON holds no
// more); the zero time is an empty message.
func (e *Encoder) timestamp(b []byte, f form, sp vspan) ([]byte, error) {
	s, err := e.scalarString(sp, "an RFC 3339 time")
	if err != nil {
		return b, err
	}
	layout := time.RFC3339
	if f == formMicroTime {
		layout = rfc3339Micro
	}
	t, perr := time.Parse(layout, string(s))
	if perr != nil {
		return b, &SchemaError{Offset: int64(sp.lo), Reason: "malformed time " + strconv.Quote(string(s))}
	}
	if t.IsZero() {
		return b, nil
	}
	var nanos int32
	if f == formMicroTime {
		nanos = int32(t.Nanosecond())
	}
	b = AppendVarintField(b, 1, uint64(t.Unix()))
	return AppendVarintField(b, 2, uint64(int64(nanos))), nil
}

// intOrString writes type (1), intVal (2) and strVal (3), all three always,
// from a JSON number (type 0) or string (type 1).
func (e *Encoder) intOrString(b []byte, sp vspan) ([]byte, error) {
	var typ uint64
	var n int64
	var s []byte
	switch {
	case e.null(sp):
	case e.doc[sp.lo] == '"':
		typ = 1
		var err error
		if s, err = e.scalarString(sp, "a string"); err != nil {
			return b, err
		}
	default:
		var err error
		if n, err = e.integer(&field{kind: kindInt32}, sp); err != nil {
			return b, err
		}
	}
	b = AppendVarintField(b, 1, typ)
	b = AppendVarintField(b, 2, uint64(n))
	return AppendBytesField(b, 3, s), nil
}
