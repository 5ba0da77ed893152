package stream

import (
	"fmt"
	"io"

	"github.com/podwatch/podwatch/rest/cborwire"
)

// CBORFramer finds where one CBOR data item ends, from its headers alone:
// Scan is handed the item's bytes so far and called again, with the same
// bytes and more, until the end is in them; each header is read once, and
// string bodies are skipped, not scanned. The zero value frames with
// MaxDepth; Reset readies it for the next item.
type CBORFramer struct {
	pos      int      // next header to read
	pending  []uint64 // per open array, map or tag: items still to come
	maxDepth int
}

// Reset readies f for a new item nested at most maxDepth deep (0 means
// MaxDepth).
func (f *CBORFramer) Reset(maxDepth int) {
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	f.pos, f.pending, f.maxDepth = 0, f.pending[:0], maxDepth
}

// Scan continues framing the item that starts at v[0]. It returns the item's
// length once its last byte is in v, or -1 when v ends first. A length or
// count that cannot fit in limit bytes is ErrTooLarge, found from the header
// before any of the body is needed; a header it does not read is a
// *cborwire.SyntaxError whose Offset is the index in v of the byte at fault.
func (f *CBORFramer) Scan(v []byte, limit int) (int, error) {
	if f.maxDepth == 0 {
		f.Reset(0)
	}
	for {
		if f.pos >= len(v) {
			return -1, nil
		}
		h, ok, bad := cborwire.ParseHead(v[f.pos:])
		if bad != "" {
			return -1, &cborwire.SyntaxError{Offset: int64(f.pos), Msg: bad}
		}
		if !ok {
			return -1, nil
		}
		next, open, err := f.extent(h, limit)
		if err != nil {
			return -1, err
		}
		if next > len(v) {
			return -1, nil // a string body still arriving: read its header again then
		}
		f.closeOne()
		if open > 0 {
			if len(f.pending) >= f.maxDepth {
				return -1, &cborwire.SyntaxError{Offset: int64(f.pos), Msg: fmt.Sprintf("items nested more than %d deep", f.maxDepth)}
			}
			f.pending = append(f.pending, open)
		}
		f.pos = next
		if f.done() {
			return f.pos, nil
		}
	}
}

// extent returns where the item whose header h is at f.pos stops being
// this header's business: past a string's body, or just past the header of
// an item that opens others, with the count of items it opens.
func (f *CBORFramer) extent(h cborwire.Head, limit int) (next int, open uint64, err error) {
	after := f.pos + h.Size
	switch h.Major {
	case cborwire.MajorBytes, cborwire.MajorText:
		if h.Arg > uint64(limit) || after+int(h.Arg) > limit {
			return 0, 0, ErrTooLarge
		}
		return after + int(h.Arg), 0, nil
	case cborwire.MajorArray:
		open = h.Arg
	case cborwire.MajorMap:
		if h.Arg > uint64(limit) {
			return 0, 0, ErrTooLarge
		}
		open = 2 * h.Arg
	case cborwire.MajorTag:
		open = 1
	}
	// Every item takes at least one byte, so more than limit cannot fit.
	if open > uint64(limit) {
		return 0, 0, ErrTooLarge
	}
	return after, open, nil
}

// closeOne counts one item of the innermost open container as started.
// Containers whose last item has started stay open until that item is
// done (done pops them).
func (f *CBORFramer) closeOne() {
	if n := len(f.pending); n > 0 {
		f.pending[n-1]--
	}
}

// done pops the containers whose items are all complete and says whether
// the whole item is.
func (f *CBORFramer) done() bool {
	for n := len(f.pending); n > 0 && f.pending[n-1] == 0; n-- {
		f.pending = f.pending[:n-1]
	}
	return len(f.pending) == 0
}

// NextCBOR frames the next CBOR data item with f, nested at most maxDepth
// deep (0 means MaxDepth), reading only until its last byte is buffered,
// and takes it. It returns the item's bytes, valid until the next Fill, and
// its stream offset. It returns io.EOF when the stream ends between items,
// io.ErrUnexpectedEOF when it ends inside one, ErrTooLarge when the item is
// longer than the Reader's limit (from a header's length, before its body
// is read, when that says so), a *cborwire.SyntaxError at its stream offset when
// framing fails, and the Reader's errors as Fill does.
func (r *Reader) NextCBOR(f *CBORFramer, maxDepth int) ([]byte, int64, error) {
	off := r.Offset()
	if len(r.Buffered()) == 0 {
		if err := r.Fill(); err != nil {
			return nil, off, err // io.EOF here is a clean end
		}
	}
	f.Reset(maxDepth)
	for {
		n, err := f.Scan(r.Buffered(), r.limit)
		if err != nil {
			if se, ok := err.(*cborwire.SyntaxError); ok {
				se.Offset += off // Scan's offset is an index into the item
			}
			return nil, off, err
		}
		if n >= 0 {
			return r.Take(n), off, nil
		}
		if err := r.Fill(); err != nil {
			if err == io.EOF {
				return nil, off, io.ErrUnexpectedEOF
			}
			return nil, off, err
		}
	}
}
