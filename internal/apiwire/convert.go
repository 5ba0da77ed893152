package apiwire

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/internal/table"
	"github.com/podwatch/podwatch/rest/jsonx"
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
		c.encode = cborenc.AppendEventJSON
	case f == wire.CBOR:
		c.encode = cborenc.AppendJSON
	case stream:
		enc := protoenc.New()
		c.encode = enc.EventFrame
	default:
		enc := protoenc.New()
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

// newTableConverter returns the converter of a body of pods (a list, or a
// watch stream when stream is true) to the Tables o asks for, each made at
// the moment now tells when its document is complete.
func newTableConverter(o table.Options, stream bool, now func() time.Time) converter {
	c := &fromJSON{}
	if !stream {
		c.encode = func(out, doc []byte) ([]byte, error) {
			o.Now = now()
			out, err := table.List(out, doc, o)
			if errors.Is(err, table.ErrNotPods) {
				return append(append(out, doc...), '\n'), nil
			}
			return append(out, '\n'), err
		}
		return c
	}
	headers := true
	c.encode = func(out, doc []byte) ([]byte, error) {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := json.Unmarshal(doc, &ev); err != nil {
			return out, err
		}
		switch ev.Type {
		case Added, Modified, Deleted, Bookmark:
		default:
			// An ERROR event carries a Status, which the apiserver
			// sends as it is.
			return append(append(out, doc...), '\n'), nil
		}
		o.Now = now()
		head := AppendEventHead(out, ev.Type)
		withTable, err := table.Pod(head, ev.Object, headers, o)
		switch {
		case errors.Is(err, table.ErrNotPods):
			return append(append(out, doc...), '\n'), nil
		case err != nil:
			return out, err
		}
		headers = false
		return append(withTable, EventTail...), nil
	}
	return c
}
