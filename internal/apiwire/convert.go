package apiwire

import (
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

func (c *toProtobuf) next(pending []byte) (int, []byte, error) {
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
