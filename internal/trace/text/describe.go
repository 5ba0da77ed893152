package text

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

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
	env, err := trace.ReadEnvelope(head)
	switch {
	case env == nil:
		return "envelope: " + oneLine(err.Error())
	case err != nil:
		return envelopeText(env) + ": " + oneLine(err.Error())
	}
	return envelopeText(env)
}

func describeFirstFrame(head []byte) string {
	e, whole := trace.FirstFrame(head)
	switch {
	case e == nil:
		return ""
	case !whole:
		return fmt.Sprintf("first frame: length prefix %s = %d bytes of WatchEvent, more than shown", spacedHex(e.Prefix.Hex), e.Prefix.Length)
	case e.Error != "":
		return fmt.Sprintf("first frame: length prefix %s: %s", spacedHex(e.Prefix.Hex), e.Error)
	}
	return "first " + frameLine(e)
}

// describeCBOR says what a CBOR body begins with: the apiserver's items
// carry the self-describe tag.
func describeCBOR(head []byte) string {
	h, ok, _ := cborwire.ParseHead(head)
	if ok && h.Major == cborwire.MajorTag && h.Arg == cborwire.TagSelfDescribed {
		return "a self-described CBOR item (tag 55799, d9 d9 f7)"
	}
	return ""
}

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
