package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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

// readEnvelope reads a protobuf body whole: its envelope and, for a list,
// how many items it holds.
func readEnvelope(body []byte) (*Envelope, error) {
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

// DescribeBody tells, in the trace's words, what the first bytes of a body
// in a binary wire format hold, for a log that shows those bytes: for a
// protobuf watch (stream=watch), the first frame's length prefix and, when
// the whole frame is in head, its WatchEvent and envelope; for another
// protobuf body, its envelope once all of it is in head (complete); for
// CBOR, the tag its first item opens with. It returns "" when head says
// nothing yet, and for JSON, which shows itself.
func DescribeBody(head []byte, contentType string, complete bool) string {
	switch f, _ := wire.ParseContentType(contentType); f {
	case wire.Protobuf:
		return describeProtobuf(head, contentType, complete)
	case wire.CBOR:
		return describeCBOR(head)
	}
	return ""
}

func describeProtobuf(head []byte, contentType string, complete bool) string {
	if wire.IsWatchStream(contentType) {
		return describeFirstFrame(head)
	}
	if !bytes.HasPrefix(head, protowire.Magic) {
		if len(head) >= len(protowire.Magic) {
			return oneLine((&protowire.MagicError{Got: head[:len(protowire.Magic)]}).Error())
		}
		return ""
	}
	if !complete {
		return `envelope k8s\x00, its object going on past what is shown`
	}
	env, err := readEnvelope(head)
	switch {
	case env == nil:
		return "envelope: " + oneLine(err.Error())
	case err != nil:
		return envelopeText(env) + ": " + oneLine(err.Error())
	}
	return envelopeText(env)
}

func describeFirstFrame(head []byte) string {
	f := newFramer(wire.Protobuf)
	end, err := f.events.Scan(head, maxEventBytes)
	switch {
	case len(head) < protowire.FrameHeader:
		return ""
	case err != nil || end < 0:
		return fmt.Sprintf("first frame: length prefix %s = %d bytes of WatchEvent, more than shown", spacedHex(prefixOf(head).Hex), f.events.FrameLength())
	}
	e, _ := f.parse(head[:end], 0)
	if e.Error != "" {
		return fmt.Sprintf("first frame: length prefix %s: %s", spacedHex(e.Prefix.Hex), e.Error)
	}
	return "first " + frameLine(e)
}
