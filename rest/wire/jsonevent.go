package wire

import (
	"bytes"
	"fmt"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// jsonEnvelope reads a JSON event's members. Its reader and framer are
// reused from one event to the next, so their scratch space is too.
type jsonEnvelope struct {
	jr jsonx.Reader
	// object frames an event's object that is not the last one the frame
	// scan saw (an unusual member order).
	object jsonx.Framer
}

// read parses the members of the frame (a '{' through its matching '}'), at
// stream offset off, keeping "type" and "object" and checking the rest.
// "object" may come before "type": both stay in the frame, so nothing is
// copied. inner and innerEnd are where the frame's scan saw its last object
// or array directly inside it (-1 when unknown): in the usual member order,
// the event's object, which then need not be framed again.
func (d *jsonEnvelope) read(frame []byte, off int64, inner, innerEnd int) (Event, error) {
	var ev Event
	p := skipWS(frame, 1)
	if p < len(frame) && frame[p] == '}' {
		return ev, missing(false, off)
	}
	hasType, hasObject := false, false
	for {
		key, q, err := d.str(frame, p, off, "a member name")
		if err != nil {
			return ev, err
		}
		p = skipWS(frame, q)
		if p >= len(frame) || frame[p] != ':' {
			return ev, syntaxAt(frame, p, off, "':' after a member name")
		}
		p = skipWS(frame, p+1)
		switch string(key) {
		case "type":
			ev.Type, p, err = d.str(frame, p, off, "a string for the event type")
			hasType = err == nil
		case "object":
			var obj []byte
			obj, p, err = d.objectAt(frame, p, off, inner, innerEnd)
			ev.Object = Object{Data: obj, Offset: off + int64(p-len(obj))}
			hasObject = err == nil
		default:
			p, err = d.skip(frame, p, off)
		}
		if err != nil {
			return ev, err
		}
		p = skipWS(frame, p)
		switch {
		case p < len(frame) && frame[p] == ',':
			p = skipWS(frame, p+1)
		case p == len(frame)-1 && frame[p] == '}':
			if !hasType || !hasObject {
				return ev, missing(hasType, off)
			}
			return ev, nil
		default:
			return ev, syntaxAt(frame, p, off, "',' or the end of the event")
		}
	}
}

// missing is the error of an event without a type or, having one, without
// an object.
func missing(hasType bool, off int64) error {
	if !hasType {
		return &jsonx.SyntaxError{Offset: off, Msg: `event has no "type"`}
	}
	return &jsonx.SyntaxError{Offset: off, Msg: `event has no "object"`}
}

// objectAt returns the event's object at frame[p] and the index after it.
func (d *jsonEnvelope) objectAt(frame []byte, p int, off int64, inner, innerEnd int) ([]byte, int, error) {
	if p >= len(frame) || frame[p] != '{' {
		return nil, p, syntaxAt(frame, p, off, "a JSON object for the event's object")
	}
	q := innerEnd
	if p != inner {
		// Not the object the frame scan saw last: frame it anew. The frame
		// scan has matched the brackets, so its end is found.
		d.object.Reset()
		n, err := d.object.Scan(frame[p:], len(frame)-p)
		if err != nil || n < 0 {
			return nil, p, syntaxAt(frame, p, off, "the end of the event's object")
		}
		q = p + n
	}
	return frame[p:q], q, nil
}

// skip checks the value of a member the event does not use, at frame[p],
// and returns the index after it.
func (d *jsonEnvelope) skip(frame []byte, p int, off int64) (int, error) {
	d.jr.Reset(frame[p:])
	d.jr.Base = off + int64(p)
	d.jr.Skip()
	if err := d.jr.Err(); err != nil {
		return p, err
	}
	return p + d.jr.Pos(), nil
}

// str reads the string at frame[p], returning its unescaped body (a subslice of
// the frame unless it held escapes) and the index after it.
func (d *jsonEnvelope) str(frame []byte, p int, off int64, want string) ([]byte, int, error) {
	if p >= len(frame) || frame[p] != '"' {
		return nil, p, syntaxAt(frame, p, off, want)
	}
	d.jr.Reset(frame[p:])
	d.jr.Base = off + int64(p)
	raw := d.jr.Raw()
	if err := d.jr.Err(); err != nil {
		return nil, p, err
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		// Rare: escapes in a member name or type. Unescape on a fresh reader.
		body = []byte(jsonx.NewReader(raw).String())
	}
	return body, p + len(raw), nil
}

func skipWS(b []byte, p int) int {
	for p < len(b) {
		switch b[p] {
		case ' ', '\t', '\r', '\n':
			p++
		default:
			return p
		}
	}
	return p
}

func syntaxAt(frame []byte, p int, off int64, want string) error {
	msg := "unexpected end of the event, want " + want
	if p < len(frame) {
		msg = fmt.Sprintf("found %q, want %s", frame[p], want)
	}
	return &jsonx.SyntaxError{Offset: off + int64(p), Msg: msg}
}
