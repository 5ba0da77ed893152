package apiwire

import (
	"encoding/binary"
	"errors"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/protowire"
)

// toProtobuf turns JSON documents into protobuf: watch events into frames,
// anything else into an envelope.
type toProtobuf struct {
	stream  bool
	framer  stream.JSONFramer
	scanned bool // framer holds the scan of the document pending starts with
	enc     protowire.Encoder
	out     []byte
}

func (c *toProtobuf) next(pending []byte, _ bool) (int, []byte, error) {
	start := 0
	for start < len(pending) && isSpace(pending[start]) {
		start++
	}
	if start == len(pending) {
		return start, nil, nil // the newline after a document
	}
	if !c.scanned {
		c.framer.Reset(0)
		c.scanned = true
	}
	n, err := c.framer.Scan(pending[start:])
	if err != nil || n < 0 {
		return 0, nil, err
	}
	c.scanned = false
	doc := pending[start : start+n]
	if c.stream {
		c.out, err = c.enc.EventFrame(c.out[:0], doc)
	} else {
		c.out, err = c.enc.Envelope(c.out[:0], doc)
	}
	return start + n, c.out, err
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// toJSON turns protobuf into the apiserver's JSON: frames into event lines,
// an envelope (whole only at the body's end) into one object and a newline.
type toJSON struct {
	stream bool
	tc     protowire.Transcoder
	out    []byte
}

var errFrameTooLarge = errors.New("apiwire: protobuf frame longer than the bound")

func (c *toJSON) next(pending []byte, atEnd bool) (int, []byte, error) {
	if !c.stream {
		if !atEnd {
			return 0, nil, nil
		}
		js, err := c.object(pending, 0)
		c.out = append(append(c.out[:0], js...), '\n')
		return len(pending), c.out, err
	}
	if len(pending) < 4 {
		return 0, nil, nil
	}
	n := binary.BigEndian.Uint32(pending)
	if uint64(n) > maxDocument {
		return 0, nil, errFrameTooLarge
	}
	if len(pending)-4 < int(n) {
		return 0, nil, nil
	}
	ev, err := protowire.ParseWatchEvent(pending[4:4+n], 4)
	if err != nil {
		return 0, nil, err
	}
	js, err := c.object(ev.Object, ev.ObjectOffset)
	c.out = AppendEvent(c.out[:0], ev.Type, js)
	return 4 + int(n), c.out, err
}

func (c *toJSON) object(envelope []byte, base int64) ([]byte, error) {
	u, err := protowire.ParseEnvelope(envelope, base)
	if err != nil {
		return nil, err
	}
	return c.tc.Object(u)
}
