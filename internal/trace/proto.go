package trace

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// asksProtobuf says whether a request's Accept header puts protobuf first,
// as podwatch's and the kubelet's do.
func asksProtobuf(h http.Header) bool {
	first, _, _ := strings.Cut(h.Get("Accept"), ",")
	f, ok := wire.ParseContentType(strings.TrimSpace(first))
	return ok && f == wire.Protobuf
}

// prefixOf shows the length prefix at the start of frame.
func prefixOf(frame []byte) *Prefix {
	if len(frame) < protowire.FrameHeader {
		return nil
	}
	p := frame[:protowire.FrameHeader]
	return &Prefix{Hex: hex.EncodeToString(p), Length: binary.BigEndian.Uint32(p)}
}

func envelopeOf(u *protowire.Unknown) *Envelope {
	return &Envelope{APIVersion: u.APIVersion, Kind: u.Kind, ContentEncoding: u.ContentEncoding,
		ContentType: u.ContentType, ObjectBytes: len(u.Raw)}
}

// ReadEnvelope reads a protobuf body whole, as a body-end step tells it:
// its envelope and, for a list, how many items it holds. An envelope read
// in part comes with the error that stopped it.
func ReadEnvelope(body []byte) (*Envelope, error) {
	u, err := protowire.ParseEnvelope(body, 0)
	if err != nil {
		return nil, err
	}
	env := envelopeOf(u)
	n, err := protowire.Items(u)
	var ke *protowire.KindError
	switch {
	case errors.As(err, &ke):
		return env, nil // not a list, or not one the schema holds
	case err != nil:
		return env, err
	}
	env.Items = &n
	return env, nil
}

// statusIn is the gist of an error answer in f, a Status; nil if the body
// is not one.
func statusIn(f wire.Format, body []byte) *Status {
	js, err := f.ObjectJSON(body)
	if err != nil {
		return nil
	}
	return statusOf(js)
}

// FirstFrame reads the first frame of a protobuf watch from head, as the
// trace tells an event: for a log that shows a body's first bytes. It
// returns nil when head is shorter than a length prefix; when the frame
// goes on past head (or past what the trace frames), whole is false and e
// holds only its prefix, whose Length is what it announces.
func FirstFrame(head []byte) (e *Event, whole bool) {
	if len(head) < protowire.FrameHeader {
		return nil, false
	}
	f := newFramer(wire.Protobuf)
	end, err := f.events.Scan(head, maxEventBytes)
	if err != nil || end < 0 {
		return &Event{Prefix: &Prefix{Hex: prefixOf(head).Hex, Length: f.events.FrameLength()}}, false
	}
	e, _ = f.parse(head[:end], 0)
	return e, true
}
