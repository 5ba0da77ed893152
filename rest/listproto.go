package rest

import (
	"bytes"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// protoList reads a protobuf list: one envelope holding the list's message,
// read one field at a time, so that an item is held only while it is decoded.
type protoList[T any] struct {
	d     *listItems[T]
	in    *stream.Reader
	msg   protowire.Message // the list's message, known from its kind
	typed bool
}

func (d *protoList[T]) run() error {
	off := d.in.Offset()
	if err := d.in.Ensure(len(protowire.Magic)); err != nil {
		return fmt.Errorf("decode list: %w", stream.Truncated(err))
	}
	if got := d.in.Take(len(protowire.Magic)); !bytes.Equal(got, protowire.Magic) {
		return fmt.Errorf("decode list: %w", &protowire.MagicError{Offset: off, Got: bytes.Clone(got)})
	}
	for {
		num, n, at, err := d.header(true)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("decode list: %w", err)
		}
		switch num {
		case 1:
			err = d.typeMeta(n, at)
		case 2:
			err = d.body(n, at)
		default: // contentEncoding and contentType: ParseEnvelope's checks
			var b []byte
			if b, err = d.take(n, -1); err == nil && len(b) > 0 {
				err = &protowire.SyntaxError{Offset: at, Msg: fmt.Sprintf("list envelope field %d is %q; only plain protobuf is read", num, b)}
			}
		}
		if err != nil {
			return err
		}
	}
}

func (d *protoList[T]) typeMeta(n uint64, at int64) error {
	b, err := d.take(n, -1)
	if err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	l := &d.d.list
	if l.APIVersion, l.Kind, err = protowire.ParseTypeMeta(b, at); err != nil {
		return fmt.Errorf("decode list: %w", err)
	}
	var ok bool
	if d.msg, ok = protowire.Root(l.Kind); !ok {
		return fmt.Errorf("decode list: %w", &protowire.KindError{APIVersion: l.APIVersion, Kind: l.Kind})
	}
	d.typed = true
	return nil
}

// body reads the list's message, n bytes at offset at: its metadata and
// items, one field at a time.
func (d *protoList[T]) body(n uint64, at int64) error {
	if !d.typed {
		return fmt.Errorf("decode list: %w", &protowire.SyntaxError{Offset: at, Msg: "list envelope holds its object before its type"})
	}
	metaNum, metaMsg, _ := d.msg.Field("metadata")
	itemsNum, itemMsg, ok := d.msg.Field("items")
	if !ok {
		return fmt.Errorf("decode list: %w", &protowire.KindError{APIVersion: d.d.list.APIVersion, Kind: d.d.list.Kind})
	}
	end := at + int64(n)
	for d.in.Offset() < end {
		num, l, fat, err := d.header(false)
		if err == nil && fat+int64(l) > end {
			err = &protowire.SyntaxError{Offset: fat, Msg: "list field longer than the list"}
		}
		if err != nil {
			return fmt.Errorf("decode list: %w", err)
		}
		switch num {
		case itemsNum:
			if err := d.item(itemMsg, l, fat); err != nil {
				return fmt.Errorf("decode list item %d: %w", len(d.d.list.Items), err)
			}
		case metaNum:
			if err := d.metadata(metaMsg, l, fat); err != nil {
				return fmt.Errorf("decode list metadata: %w", err)
			}
		default:
			if _, err := d.take(l, -1); err != nil {
				return fmt.Errorf("decode list: %w", err)
			}
		}
	}
	d.d.begin()
	return nil
}

func (d *protoList[T]) item(m protowire.Message, n uint64, at int64) error {
	i := len(d.d.list.Items)
	if d.d.lim.MaxItems > 0 && i >= d.d.lim.MaxItems {
		return &TooManyItemsError{Limit: d.d.lim.MaxItems}
	}
	b, err := d.take(n, i)
	if err != nil {
		return err
	}
	return d.d.add(i, wire.ProtobufObject(m, b, at))
}

func (d *protoList[T]) metadata(m protowire.Message, n uint64, at int64) error {
	b, err := d.take(n, -1)
	if err != nil {
		return err
	}
	js, err := d.d.tc.JSON(wire.ProtobufObject(m, b, at))
	if err != nil {
		return err
	}
	var r jsonx.Reader
	r.Reset(js)
	d.d.list.Metadata = meta.ListMeta{}
	d.d.list.Metadata.ReadJSON(&r)
	if err := r.Err(); err != nil {
		return fmt.Errorf("at byte %d: %w", at, err)
	}
	return nil
}

// header reads a length-delimited field's key and length: its number, its
// length and the offset of its value. io.EOF is a clean end only where
// atTop allows the envelope to end.
func (d *protoList[T]) header(atTop bool) (int32, uint64, int64, error) {
	at := d.in.Offset()
	key, err := d.varint()
	if err == io.EOF && atTop && d.in.Offset() == at {
		return 0, 0, 0, io.EOF
	}
	if err != nil {
		return 0, 0, 0, stream.Truncated(err)
	}
	if key&7 != 2 || key>>3 == 0 || key>>3 > 1<<29-1 {
		return 0, 0, 0, &protowire.SyntaxError{Offset: at, Msg: fmt.Sprintf("list field %d has wire type %d", key>>3, key&7)}
	}
	n, err := d.varint()
	if err != nil {
		return 0, 0, 0, stream.Truncated(err)
	}
	return int32(key >> 3), n, d.in.Offset(), nil
}

func (d *protoList[T]) varint() (uint64, error) {
	at := d.in.Offset()
	var x uint64
	for i := 0; i < 10; i++ {
		if err := d.in.Ensure(1); err != nil {
			if i == 0 && err == io.ErrUnexpectedEOF {
				return 0, io.EOF
			}
			return 0, err
		}
		b := d.in.Take(1)[0]
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if i == 9 && b > 1 {
				break
			}
			return x, nil
		}
	}
	return 0, &protowire.SyntaxError{Offset: at, Msg: "varint longer than 64 bits"}
}

// take reads n bytes of a value: item index (or -1 for another member) says
// which, should it be over the limit.
func (d *protoList[T]) take(n uint64, index int) ([]byte, error) {
	if n > uint64(d.d.limit) {
		return nil, &ItemTooLargeError{Index: index, Limit: d.d.limit}
	}
	if err := d.in.Ensure(int(n)); err != nil {
		if err == stream.ErrTooLarge {
			return nil, &ItemTooLargeError{Index: index, Limit: d.d.limit}
		}
		return nil, stream.Truncated(err)
	}
	return d.in.Take(int(n)), nil
}
