package watch

import (
	"bytes"
	"fmt"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// envelope is what an event frame holds: its type and its object's bytes, both
// subslices of the frame.
type envelope struct {
	typ, obj []byte
	objAt    int // index of obj in the frame
	hasType  bool
}

// event decodes the frame found at stream offset off.
func (d *Decoder[T]) event(frame []byte, off int64) (Event[T], error) {
	env, err := d.envelope(frame, off)
	if err != nil {
		return Event[T]{}, err
	}
	if !env.hasType {
		return Event[T]{}, &jsonx.SyntaxError{Offset: off, Msg: `event has no "type"`}
	}
	if env.obj == nil {
		return Event[T]{}, &jsonx.SyntaxError{Offset: off, Msg: `event has no "object"`}
	}
	return d.typed(env.typ, env.obj, off, off+int64(env.objAt))
}

// typed builds the event of type typ whose object's JSON, at stream offset
// objOff, is obj: the logic both content types share.
func (d *Decoder[T]) typed(rawType, obj []byte, off, objOff int64) (Event[T], error) {
	typ, ok := eventType(rawType)
	if !ok {
		return Event[T]{}, &UnknownEventTypeError{Offset: off, Type: string(rawType)}
	}
	ev := Event[T]{Type: typ, Offset: off}
	var err error
	if typ == Error {
		st, err := meta.ParseStatus(obj)
		if err != nil {
			return Event[T]{}, objectError(objOff, typ, err)
		}
		ev.Err = rest.NewStatusErrorFromStatus("", st)
		return ev, nil
	}
	if ev.Object, err = d.decode(obj); err != nil {
		return Event[T]{}, objectError(objOff, typ, err)
	}
	return ev, nil
}

// eventType maps the type's JSON string body to an EventType without
// allocating for the five known ones.
func eventType(b []byte) (EventType, bool) {
	switch string(b) {
	case "ADDED":
		return Added, true
	case "MODIFIED":
		return Modified, true
	case "DELETED":
		return Deleted, true
	case "BOOKMARK":
		return Bookmark, true
	case "ERROR":
		return Error, true
	}
	return "", false
}

func objectError(off int64, typ EventType, err error) error {
	if moved, ok := stream.AtStream(err, off); ok {
		return moved
	}
	return &ObjectError{Offset: off, Type: typ, Err: err}
}

// envelope parses the members of the frame (a '{' through its matching '}'),
// keeping "type" and "object" and checking the rest. "object" may come before
// "type": both stay in the frame, so nothing is copied.
func (d *Decoder[T]) envelope(frame []byte, off int64) (envelope, error) {
	var env envelope
	p := skipWS(frame, 1)
	if p < len(frame) && frame[p] == '}' {
		return env, nil
	}
	for {
		key, q, err := d.str(frame, p, off, "a member name")
		if err != nil {
			return env, err
		}
		p = skipWS(frame, q)
		if p >= len(frame) || frame[p] != ':' {
			return env, syntaxAt(frame, p, off, "':' after a member name")
		}
		p = skipWS(frame, p+1)
		if p, err = d.member(&env, key, frame, p, off); err != nil {
			return env, err
		}
		p = skipWS(frame, p)
		switch {
		case p < len(frame) && frame[p] == ',':
			p = skipWS(frame, p+1)
		case p == len(frame)-1 && frame[p] == '}':
			return env, nil
		default:
			return env, syntaxAt(frame, p, off, "',' or the end of the event")
		}
	}
}

// member reads the value at frame[p] for key and returns the index after it.
func (d *Decoder[T]) member(env *envelope, key []byte, frame []byte, p int, off int64) (int, error) {
	switch string(key) {
	case "type":
		typ, q, err := d.str(frame, p, off, "a string for the event type")
		env.typ, env.hasType = typ, err == nil
		return q, err
	case "object":
		if p >= len(frame) || frame[p] != '{' {
			return p, syntaxAt(frame, p, off, "a JSON object for the event's object")
		}
		at, q := d.framer.Inner()
		if p != at {
			// Not the object the frame scan saw last: frame it anew. The frame
			// scan has matched the brackets, so its end is found.
			d.object.Reset(0)
			n, err := d.object.Scan(frame[p:])
			if err != nil || n < 0 {
				return p, syntaxAt(frame, p, off, "the end of the event's object")
			}
			q = p + n
		}
		env.obj, env.objAt = frame[p:q], p
		return q, nil
	}
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
func (d *Decoder[T]) str(frame []byte, p int, off int64, want string) ([]byte, int, error) {
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
