package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/protowire"
)

// protobufType is the media type of the Kubernetes protobuf wire format; a
// watch answers it with the parameter stream=watch.
const protobufType = "application/vnd.kubernetes.protobuf"

// isProtobuf says whether a Content-Type is Kubernetes protobuf.
func isProtobuf(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == protobufType
}

// asksProtobuf says whether a request's Accept header puts protobuf first,
// as podwatch's and the kubelet's do.
func asksProtobuf(h http.Header) bool {
	first, _, _ := strings.Cut(h.Get("Accept"), ",")
	return isProtobuf(strings.TrimSpace(first))
}

const explainBadFrame = "podwatch cannot read this frame: the client's decoder fails on it too, and the watch ends"

// prefixOf shows the length prefix at the start of frame.
func prefixOf(frame []byte) *Prefix {
	if len(frame) < stream.FrameHeader {
		return nil
	}
	p := frame[:stream.FrameHeader]
	return &Prefix{Hex: hex.EncodeToString(p), Length: binary.BigEndian.Uint32(p)}
}

// parseFrame reads what a trace tells of one protobuf watch frame, prefix
// included, at stream offset off: the prefix, the WatchEvent's type, the
// envelope around its object, and what the object says of itself (read
// through its JSON, as the client reads it). It reads as the client's
// decoder does; where that fails, the event holds the typed error's text.
func parseFrame(tc *protowire.Transcoder, frame []byte, off int64) *Event {
	e, _ := parseFrameObject(tc, frame, off)
	return e
}

// parseFrameObject is parseFrame that also returns the JSON of the frame's
// object (nil if it could not be read), in tc's buffer until its next use.
func parseFrameObject(tc *protowire.Transcoder, frame []byte, off int64) (*Event, []byte) {
	e := &Event{Offset: off, Bytes: len(frame), Prefix: prefixOf(frame)}
	object, err := readFrame(tc, frame[stream.FrameHeader:], off+stream.FrameHeader, e)
	if err != nil {
		e.Error = oneLine(err.Error())
		e.Explain = explainBadFrame
		return e, nil
	}
	e.Explain = explainEvent(e)
	return e, object
}

func readFrame(tc *protowire.Transcoder, body []byte, off int64, e *Event) ([]byte, error) {
	we, err := protowire.ParseWatchEvent(body, off)
	if err != nil {
		return nil, err
	}
	e.Type = we.Type
	switch {
	case we.Type == "":
		return nil, &protowire.SyntaxError{Offset: off, Msg: "watch event has no type"}
	case !we.HasObject:
		return nil, &protowire.SyntaxError{Offset: off, Msg: "watch event has no object"}
	}
	u, err := protowire.ParseEnvelope(we.Object, we.ObjectOffset)
	if err != nil {
		return nil, err
	}
	e.Envelope = envelopeOf(u)
	object, err := tc.Object(u)
	if err != nil {
		return nil, err
	}
	readObject(object, e)
	return object, nil
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

// protobufStatus is the gist of a protobuf error answer, a Status envelope;
// nil if the body is not one.
func protobufStatus(body []byte) *Status {
	u, err := protowire.ParseEnvelope(body, 0)
	if err != nil || u.Kind != "Status" {
		return nil
	}
	var tc protowire.Transcoder
	js, err := tc.Object(u)
	if err != nil {
		return nil
	}
	return statusOf(js)
}

// DescribeProtobuf tells, in the trace's words, what the first bytes of a
// protobuf body hold, for a log that shows those bytes: for a watch
// (stream=watch), the first frame's length prefix and, when the whole frame
// is in head, its WatchEvent and envelope; for another body, its envelope
// once all of it is in head (complete). It returns "" when head says
// nothing yet.
func DescribeProtobuf(head []byte, contentType string, complete bool) string {
	_, params, _ := mime.ParseMediaType(contentType)
	if params["stream"] == "watch" {
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
	end, length, err := stream.FrameEnd(head, maxEventBytes)
	switch {
	case len(head) < stream.FrameHeader:
		return ""
	case err != nil || end < 0:
		return fmt.Sprintf("first frame: length prefix %s = %d bytes of WatchEvent, more than shown", spacedHex(prefixOf(head).Hex), length)
	}
	var tc protowire.Transcoder
	e := parseFrame(&tc, head[:end], 0)
	if e.Error != "" {
		return fmt.Sprintf("first frame: length prefix %s: %s", spacedHex(e.Prefix.Hex), e.Error)
	}
	return "first " + frameLine(e)
}
