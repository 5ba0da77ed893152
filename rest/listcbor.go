package rest

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/wire"
)

// cborList reads a CBOR list, one item (a map under the self-describe tag)
// whose "items" array is read one element at a time: each is framed on the
// shared reader and transcoded to the JSON the server would have sent, so a
// list never needs more than one item's bytes.
type cborList[T any] struct {
	d  *listItems[T]
	in *stream.Reader
	f  cborwire.Framer
	tc cborwire.Transcoder
	jr jsonx.Reader
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
	if err := d.list(); err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	return nil
}

func (d *cborList[T]) list() error {
	d.tc.Limit = d.d.tc.Limit
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
	d.d.begin()
	if _, _, err := d.in.Next(&d.f); err != io.EOF {
		return &cborwire.SyntaxError{Offset: d.in.Offset(), Msg: "bytes after the list"}
	}
	return nil
}

// value frames and transcodes the next item; index says which list item
// it is, for a too-large error, -1 for other members.
func (d *cborList[T]) value(index int) ([]byte, error) {
	item, at, err := d.in.Next(&d.f)
	if err == stream.ErrTooLarge {
		return nil, &ItemTooLargeError{Index: index, Limit: d.d.limit}
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
		return nil, &ItemTooLargeError{Index: index, Limit: d.d.limit}
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
		d.d.list.Metadata.ReadJSON(&d.jr)
	case "kind":
		d.d.list.Kind = d.jr.String()
	case "apiVersion":
		d.d.list.APIVersion = d.jr.String()
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
	for i := range int(min(h.Arg, math.MaxInt)) {
		if err := d.item(i); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	return nil
}

func (d *cborList[T]) item(i int) error {
	if d.d.lim.MaxItems > 0 && i >= d.d.lim.MaxItems {
		return &TooManyItemsError{Limit: d.d.lim.MaxItems}
	}
	at := d.in.Offset()
	js, err := d.value(i)
	if err != nil {
		return err
	}
	return d.d.add(i, wire.TranscodedObject(js, at))
}
