package watch

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// nextCBOR decodes one item of a CBOR watch (application/cbor-seq): a
// self-described map of "type" and "object", items following one another
// with no framing. The item is transcoded to the JSON event the server
// would have sent, and the event logic and the DecodeFunc are those of
// JSON. A malformed event (no type, say, or an object its DecodeFunc finds
// malformed) is a *cborwire.SyntaxError at the item's offset.
func (d *Decoder[T]) nextCBOR() (Event[T], error) {
	item, off, err := d.cborItem()
	if err != nil {
		return Event[T]{}, err
	}
	js, err := d.cb.JSON(item, off)
	var tl *cborwire.TooLargeError
	if errors.As(err, &tl) {
		return Event[T]{}, &FrameTooLargeError{Offset: off, Limit: d.limit}
	}
	if err != nil {
		return Event[T]{}, err
	}
	if len(js) == 0 || js[0] != '{' {
		return Event[T]{}, &cborwire.SyntaxError{Offset: off, Msg: "watch event is not a map"}
	}
	ev, err := d.event(js, off)
	if err != nil {
		var se *jsonx.SyntaxError
		if errors.As(err, &se) {
			// An offset into the transcoded JSON means nothing in the
			// stream: the error is the item's.
			return Event[T]{}, &cborwire.SyntaxError{Offset: off, Msg: fmt.Sprintf("event item's JSON, at byte %d of it: %s", se.Offset-off, se.Msg)}
		}
		return Event[T]{}, err
	}
	if d.keep {
		ev.Raw = bytes.Clone(js)
	}
	return ev, nil
}

// cborItem frames the next item on the shared reader.
func (d *Decoder[T]) cborItem() ([]byte, int64, error) {
	item, off, err := d.in.NextCBOR(&d.cf, 0)
	var se *cborwire.SyntaxError
	switch {
	case err == nil:
		return item, off, nil
	case err == io.EOF:
		return nil, off, io.EOF
	case err == stream.ErrTooLarge:
		return nil, off, &FrameTooLargeError{Offset: off, Limit: d.limit}
	case err == io.ErrUnexpectedEOF:
		return nil, off, fmt.Errorf("watch stream ended inside the item at byte %d: %w", off, io.ErrUnexpectedEOF)
	case errors.As(err, &se):
		return nil, off, err
	}
	return nil, off, d.readErr(err)
}
