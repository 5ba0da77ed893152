package protowire

import (
	"bytes"
	"fmt"
)

// Magic starts every envelope: "k8s" and a zero byte.
var Magic = []byte("k8s\x00")

// MagicError is an envelope that does not start with Magic: the body is not
// Kubernetes protobuf. Got holds its first bytes.
type MagicError struct {
	Offset int64
	Got    []byte
}

func (e *MagicError) Error() string {
	return fmt.Sprintf("protobuf: envelope at byte %d starts with %q, want %q", e.Offset, e.Got, Magic)
}

// Unknown is an envelope's content: the object's type and its message.
type Unknown struct {
	APIVersion, Kind string
	// Raw is the object's message, a subslice of the envelope; RawOffset is
	// its stream offset.
	Raw       []byte
	RawOffset int64
	// ContentEncoding and ContentType are empty in what the apiserver sends;
	// ParseEnvelope refuses anything else.
	ContentEncoding, ContentType string
}

// ParseEnvelope reads the envelope b, whose first byte is at stream offset
// base. Errors are a *MagicError or a *SyntaxError.
func ParseEnvelope(b []byte, base int64) (*Unknown, error) {
	u := new(Unknown)
	if err := u.ParseEnvelope(b, base); err != nil {
		return nil, err
	}
	return u, nil
}

// ParseEnvelope is the function ParseEnvelope into u, which a decoder
// reuses from one object to the next.
func (u *Unknown) ParseEnvelope(b []byte, base int64) error {
	if !bytes.HasPrefix(b, Magic) {
		return &MagicError{Offset: base, Got: bytes.Clone(b[:min(len(b), len(Magic))])}
	}
	return u.parse(b[len(Magic):], base+int64(len(Magic)))
}

func (u *Unknown) parse(b []byte, base int64) error {
	var buf [6]occ
	fields, err := scanFields(buf[:0], b, base)
	if err != nil {
		return err
	}
	*u = Unknown{RawOffset: base + int64(len(b))}
	for _, f := range fields {
		if f.wire != wireBytes {
			return &SyntaxError{Offset: f.at, Msg: fmt.Sprintf("envelope field %d has wire type %d", f.num, f.wire)}
		}
		switch f.num {
		case 1:
			if err := u.typeMeta(f); err != nil {
				return err
			}
		case 2:
			u.Raw, u.RawOffset = f.data, f.at
		case 3:
			u.ContentEncoding = string(f.data)
		case 4:
			u.ContentType = string(f.data)
		}
	}
	if u.ContentEncoding != "" || u.ContentType != "" {
		return &SyntaxError{Offset: base, Msg: fmt.Sprintf("envelope holds contentEncoding %q, contentType %q; only plain protobuf is read", u.ContentEncoding, u.ContentType)}
	}
	return nil
}

// typeName returns b as a string, without allocating for the kinds and
// versions this schema holds, nor for the event types.
func typeName(b []byte) string {
	switch string(b) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	case "v1":
		return "v1"
	case "Pod":
		return "Pod"
	case "PodList":
		return "PodList"
	case "Status":
		return "Status"
	case "WatchEvent":
		return "WatchEvent"
	}
	return string(b)
}

func (u *Unknown) typeMeta(f occ) error {
	var buf [4]occ
	tm, err := scanFields(buf[:0], f.data, f.at)
	if err != nil {
		return err
	}
	for _, x := range tm {
		if x.wire != wireBytes {
			return &SyntaxError{Offset: x.at, Msg: fmt.Sprintf("typeMeta field %d has wire type %d", x.num, x.wire)}
		}
		switch x.num {
		case 1:
			u.APIVersion = typeName(x.data)
		case 2:
			u.Kind = typeName(x.data)
		}
	}
	return nil
}

// WatchEvent is one frame of a protobuf watch: the event's type and the
// envelope of its object, a subslice of the frame at stream offset ObjectOffset.
type WatchEvent struct {
	Type         string
	Object       []byte
	ObjectOffset int64
	HasObject    bool
}

// ParseWatchEvent reads a watch frame's message, whose first byte is at
// stream offset base.
func ParseWatchEvent(b []byte, base int64) (WatchEvent, error) {
	var ev WatchEvent
	var buf [4]occ
	fields, err := scanFields(buf[:0], b, base)
	if err != nil {
		return ev, err
	}
	for _, f := range fields {
		if f.wire != wireBytes {
			return ev, &SyntaxError{Offset: f.at, Msg: fmt.Sprintf("watch event field %d has wire type %d", f.num, f.wire)}
		}
		switch f.num {
		case 1:
			ev.Type = typeName(f.data)
		case 2:
			// A RawExtension: its raw (1) is the object's envelope.
			var inner [2]occ
			raw, err := scanFields(inner[:0], f.data, f.at)
			if err != nil {
				return ev, err
			}
			ev.HasObject = true
			ev.Object, ev.ObjectOffset = nil, f.at
			for _, r := range raw {
				if r.num == 1 && r.wire == wireBytes {
					ev.Object, ev.ObjectOffset = r.data, r.at
				}
			}
		}
	}
	return ev, nil
}

// ParseTypeMeta reads an envelope's typeMeta field (apiVersion, kind), for a
// reader that streams the envelope rather than parsing it whole.
func ParseTypeMeta(b []byte, base int64) (apiVersion, kind string, err error) {
	var u Unknown
	err = u.typeMeta(occ{data: b, at: base})
	return u.APIVersion, u.Kind, err
}
