package apiwire

import (
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// fromJSON turns JSON documents into the client's form, one document at a
// time as each is framed: watch events into the form's events, anything
// else into one object.
type fromJSON struct {
	framer  jsonx.Framer
	scanned bool // framer holds the scan of the document pending starts with
	encode  func(out, doc []byte) ([]byte, error)
	out     []byte
}

// newConverter returns the converter to f of a body that is a watch stream
// when stream is true.
func newConverter(f wire.Format, stream bool) converter {
	c := &fromJSON{}
	switch {
	case f == wire.CBOR && stream:
		c.encode = cborwire.AppendEventJSON
	case f == wire.CBOR:
		c.encode = cborwire.AppendJSON
	case stream:
		var enc protowire.Encoder
		c.encode = enc.EventFrame
	default:
		var enc protowire.Encoder
		c.encode = enc.Envelope
	}
	return c
}

func (c *fromJSON) next(pending []byte) (int, []byte, error) {
	start := c.framer.Space(pending)
	if start == len(pending) {
		return start, nil, nil // the newline after a document
	}
	if !c.scanned {
		c.framer.Reset()
		c.scanned = true
	}
	n, err := c.framer.Scan(pending[start:], len(pending)-start)
	if err != nil || n < 0 {
		return 0, nil, err
	}
	c.scanned = false
	c.out, err = c.encode(c.out[:0], pending[start:start+n])
	return start + n, c.out, err
}
