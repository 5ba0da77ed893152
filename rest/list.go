package rest

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// List is a decoded list answer: its kind, its metadata (resourceVersion and
// continue token) and its items.
type List[T any] struct {
	meta.TypeMeta
	Metadata meta.ListMeta
	Items    []T
}

// ListLimits bound what decoding a list may cost.
type ListLimits struct {
	// MaxItemBytes bounds the encoded size of one item, and of the list's other
	// members; zero or less means 16 MiB.
	MaxItemBytes int64
	// MaxItems bounds the number of items; zero means no bound.
	MaxItems int
}

const defaultMaxItemBytes = 16 << 20

func (l ListLimits) maxItemBytes() int64 {
	if l.MaxItemBytes <= 0 {
		return defaultMaxItemBytes
	}
	return l.MaxItemBytes
}

// ItemTooLargeError reports a list item larger than ListLimits.MaxItemBytes. Index
// is -1 when the value at fault is a member of the list other than an item.
type ItemTooLargeError struct {
	Index int
	Limit int64
}

func (e *ItemTooLargeError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("list member larger than %d bytes", e.Limit)
	}
	return fmt.Sprintf("list item %d is larger than %d bytes", e.Index, e.Limit)
}

// TooManyItemsError reports a list with more than ListLimits.MaxItems items.
type TooManyItemsError struct {
	Limit int
}

func (e *TooManyItemsError) Error() string {
	return fmt.Sprintf("list has more than %d items", e.Limit)
}

// DecodeList decodes a list answer in format as it streams from r, handing
// each item to codec as soon as the item is complete; it never holds more of
// r than one item and one read. It reads r to its end and does not close it.
//
// A JSON list is one object whose items are framed one at a time. A protobuf
// list is one envelope holding the list's message, whose items are read one
// field at a time and decoded from their messages (codec.Protobuf) or
// transcoded to the JSON the server would have sent (codec.JSON). A CBOR list
// is one item whose items array is read one element at a time, each
// transcoded to JSON.
//
// Errors name the phase: "decode list item N", "decode list metadata" or "decode
// list", wrapping *ItemTooLargeError, *TooManyItemsError, the format's syntax
// error with the byte offset in r (a *jsonx.SyntaxError, *protowire.SyntaxError
// or *protowire.MagicError, *cborwire.SyntaxError; codec's own syntax errors
// too, their offsets moved from the item into r), codec's other errors
// (placed "at byte N" of r), io.ErrUnexpectedEOF when r ends early, or r's
// read error.
func DecodeList[T any](r io.Reader, format wire.Format, codec meta.Codec[T], lim ListLimits) (*List[T], error) {
	d := &listItems[T]{codec: codec, lim: lim, limit: lim.maxItemBytes()}
	d.tc.Limit = int(min(d.limit, math.MaxInt-1)) // an item's JSON is bounded as a JSON item's bytes are
	var err error
	switch format {
	case wire.Protobuf:
		err = (&protoList[T]{d: d, in: stream.NewReader(r, d.tc.Limit)}).run()
	case wire.CBOR:
		err = (&cborList[T]{d: d, in: stream.NewReader(r, d.tc.Limit)}).run()
	default:
		err = (&listDecoder[T]{d: d, s: newScanner(r, d.limit)}).run()
	}
	if err != nil {
		return nil, err
	}
	return &d.list, nil
}

// listItems is what decoding a list keeps whatever its format: the list so
// far, and how to decode an item.
type listItems[T any] struct {
	codec meta.Codec[T]
	lim   ListLimits
	limit int64
	tc    wire.Transcoder
	list  List[T]
}

// add decodes item i and appends it.
func (d *listItems[T]) add(i int, item wire.Object) error {
	if d.lim.MaxItems > 0 && i >= d.lim.MaxItems {
		return &TooManyItemsError{Limit: d.lim.MaxItems}
	}
	v, located, err := wire.Decode(&d.tc, item, d.codec)
	var tl *protowire.TooLargeError
	switch {
	case err == nil:
		d.list.Items = append(d.list.Items, v)
		return nil
	case located:
		return err
	case errors.As(err, &tl):
		return &ItemTooLargeError{Index: i, Limit: d.limit}
	}
	// An offset inside the item, or inside JSON transcoded from it, means
	// nothing in the stream: the item's own offset does.
	return fmt.Errorf("at byte %d: %w", item.Offset, err)
}

// begin marks the list's items as present, though there may be none.
func (d *listItems[T]) begin() {
	if d.list.Items == nil {
		d.list.Items = []T{}
	}
}

// listDecoder reads a JSON list.
type listDecoder[T any] struct {
	d  *listItems[T]
	s  *scanner
	jr jsonx.Reader
}

func (d *listDecoder[T]) run() error {
	if err := d.members(); err != nil {
		return err
	}
	end, err := d.s.atEnd()
	if err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	if !end {
		return fmt.Errorf("decode list: %w", d.s.syntaxHere("data after the list"))
	}
	return nil
}

// members reads the list object, member by member. A member given twice counts
// the last time, as encoding/json would have it.
func (d *listDecoder[T]) members() error {
	s := d.s
	if err := s.expect('{', "a list object"); err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	if c, err := s.peek(); err != nil {
		return fmt.Errorf("decode list: %w", err)
	} else if c == '}' {
		s.next()
		return nil
	}
	for {
		if err := d.member(); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return fmt.Errorf("decode list: %w", err)
		}
		if c != ',' && c != '}' {
			return fmt.Errorf("decode list: %w", s.syntaxHere("found %q, want ',' or '}'", c))
		}
		s.next()
		if c == '}' {
			return nil
		}
	}
}

func (d *listDecoder[T]) member() error {
	key, err := d.key()
	if err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	if err := d.s.expect(':', "':' after a member name"); err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	switch key {
	case "items":
		return d.items()
	case "metadata":
		if err := d.scalarOrObject(func(r *jsonx.Reader) {
			d.d.list.Metadata = meta.ListMeta{}
			d.d.list.Metadata.ReadJSON(r)
		}); err != nil {
			return fmt.Errorf("decode list metadata: %w", err)
		}
	case "kind":
		err = d.scalarOrObject(func(r *jsonx.Reader) { d.d.list.Kind = r.String() })
	case "apiVersion":
		err = d.scalarOrObject(func(r *jsonx.Reader) { d.d.list.APIVersion = r.String() })
	default:
		err = d.scalarOrObject((*jsonx.Reader).Skip)
	}
	if err != nil {
		return fmt.Errorf("decode list: member %q: %w", key, err)
	}
	return nil
}

// key reads a member name. The names the list knows are plain ASCII, so only a
// name with escapes needs decoding.
func (d *listDecoder[T]) key() (string, error) {
	if c, err := d.s.peek(); err != nil {
		return "", err
	} else if c != '"' {
		return "", d.s.syntaxHere("found %q, want a member name", c)
	}
	var key string
	err := d.scalarOrObject(func(r *jsonx.Reader) { key = r.String() })
	return key, err
}

// scalarOrObject captures the next value and has read decode it with a reader
// that reports stream offsets, failing unless read consumed it all.
func (d *listDecoder[T]) scalarOrObject(read func(*jsonx.Reader)) error {
	raw, start, err := d.s.value(1)
	if err != nil {
		return d.valueErr(-1, err)
	}
	d.jr.Reset(raw)
	d.jr.Base = start
	read(&d.jr)
	if d.jr.Err() == nil && !d.jr.AtEnd() {
		d.jr.Fail("unexpected data after the value")
	}
	return d.jr.Err()
}

func (d *listDecoder[T]) valueErr(index int, err error) error {
	if errors.Is(err, errValueTooLarge) {
		return &ItemTooLargeError{Index: index, Limit: d.s.limit}
	}
	return err
}

func (d *listDecoder[T]) items() error {
	s := d.s
	c, err := s.peek()
	if err != nil {
		return fmt.Errorf("decode list items: %w", err)
	}
	if c == 'n' {
		d.d.list.Items = nil
		if err := d.scalarOrObject(func(r *jsonx.Reader) { r.Null() }); err != nil {
			return fmt.Errorf("decode list items: %w", err)
		}
		return nil
	}
	if err := s.expect('[', "an array of items"); err != nil {
		return fmt.Errorf("decode list items: %w", err)
	}
	d.d.list.Items = nil
	d.d.begin()
	if c, err := s.peek(); err != nil {
		return fmt.Errorf("decode list items: %w", err)
	} else if c == ']' {
		s.next()
		return nil
	}
	for i := 0; ; i++ {
		if err := d.item(i); err != nil {
			return fmt.Errorf("decode list item %d: %w", i, err)
		}
		c, err := s.peek()
		if err != nil {
			return fmt.Errorf("decode list item %d: %w", i, err)
		}
		if c != ',' && c != ']' {
			return fmt.Errorf("decode list item %d: %w", i, s.syntaxHere("found %q, want ',' or ']'", c))
		}
		s.next()
		if c == ']' {
			return nil
		}
	}
}

func (d *listDecoder[T]) item(i int) error {
	if d.d.lim.MaxItems > 0 && i >= d.d.lim.MaxItems {
		return &TooManyItemsError{Limit: d.d.lim.MaxItems}
	}
	raw, start, err := d.s.value(2)
	if err != nil {
		return d.valueErr(i, err)
	}
	return d.d.add(i, wire.JSONObject(raw, start))
}
