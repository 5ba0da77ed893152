package rest

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// cborList decodes a CBOR list, one item (a map under the self-describe
// tag) whose "items" array is read one element at a time: each is framed
// on the shared reader, transcoded to the JSON the server would have sent
// and handed to decode, so a list never needs more than one item's bytes.
type cborList[T any] struct {
	in     *stream.Reader
	f      stream.CBORFramer
	tc     cborwire.Transcoder
	jr     jsonx.Reader
	decode meta.DecodeFunc[T]
	lim    ListLimits
	limit  int64
	list   List[T]
}

func decodeCBORList[T any](r io.Reader, decode meta.DecodeFunc[T], lim ListLimits) (*List[T], error) {
	limit := lim.maxItemBytes()
	n := int(min(limit, math.MaxInt-1))
	d := cborList[T]{in: stream.NewReader(r, n), decode: decode, lim: lim, limit: limit}
	d.tc.Limit = n // an item's JSON is bounded as a JSON item's bytes are
	if err := d.run(); err != nil {
		return nil, fmt.Errorf("decode list: %w", err)
	}
	return &d.list, nil
}

// head reads and takes the next header.
func (d *cborList[T]) head() (cborwire.Head, int64, error) {
	at := d.in.Offset()
	for {
		h, ok, bad := cborwire.ParseHead(d.in.Buffered())
		if bad != "" {
			return h, at, &cborwire.SyntaxError{Offset: at, Msg: bad}
		}
		if ok {
			d.in.Take(h.Size)
			return h, at, nil
		}
		if err := d.in.Fill(); err != nil {
			return h, at, stream.Truncated(err)
		}
	}
}

func (d *cborList[T]) run() error {
	h, at, err := d.head()
	if err == nil && h.Major == cborwire.MajorTag && h.Arg == cborwire.TagSelfDescribed {
		h, at, err = d.head()
	}
	if err != nil {
		return err
	}
	if h.Major != cborwire.MajorMap {
		return &cborwire.SyntaxError{Offset: at, Msg: fmt.Sprintf("list is major type %d, want a map", h.Major)}
	}
	for range h.Arg {
		key, err := d.value(-1)
		if err != nil {
			return err
		}
		if err := d.member(key); err != nil {
			return err
		}
	}
	if d.list.Items == nil {
		d.list.Items = []T{}
	}
	if _, _, err := d.in.NextCBOR(&d.f, 0); err != io.EOF {
		return &cborwire.SyntaxError{Offset: d.in.Offset(), Msg: "bytes after the list"}
	}
	return nil
}

// value frames and transcodes the next item; index says which list item
// it is, for a too-large error, -1 for other members.
func (d *cborList[T]) value(index int) ([]byte, error) {
	item, at, err := d.in.NextCBOR(&d.f, 0)
	if err == stream.ErrTooLarge {
		return nil, &ItemTooLargeError{Index: index, Limit: d.limit}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	js, err := d.tc.JSON(item, at)
	var tl *cborwire.TooLargeError
	if errors.As(err, &tl) {
		return nil, &ItemTooLargeError{Index: index, Limit: d.limit}
	}
	return js, err
}

func (d *cborList[T]) member(key []byte) error {
	d.jr.Reset(key)
	name := d.jr.String()
	if d.jr.Err() != nil {
		return &cborwire.SyntaxError{Offset: d.in.Offset(), Msg: "list map key is not a string"}
	}
	if name == "items" {
		return d.items()
	}
	js, err := d.value(-1)
	if err != nil {
		return err
	}
	d.jr.Reset(js)
	switch name {
	case "metadata":
		d.list.Metadata.ReadJSON(&d.jr)
	case "kind":
		d.list.Kind = d.jr.String()
	case "apiVersion":
		d.list.APIVersion = d.jr.String()
	}
	return d.jr.Err()
}

func (d *cborList[T]) items() error {
	h, at, err := d.head()
	if err != nil {
		return err
	}
	if h.Major == cborwire.MajorSimple && h.Info == 22 {
		return nil // null: no items
	}
	if h.Major != cborwire.MajorArray {
		return &cborwire.SyntaxError{Offset: at, Msg: fmt.Sprintf("list items are major type %d, want an array", h.Major)}
	}
	for i := range h.Arg {
		if d.lim.MaxItems > 0 && int(i) >= d.lim.MaxItems {
			return &TooManyItemsError{Limit: d.lim.MaxItems}
		}
		at := d.in.Offset()
		js, err := d.value(int(i))
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		v, err := d.decode(js)
		if err != nil {
			// An offset into the transcoded JSON means nothing in the stream.
			return fmt.Errorf("item %d at byte %d: %w", i, at, err)
		}
		d.list.Items = append(d.list.Items, v)
	}
	return nil
}
