package cborwire

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/stream"
)

// Framer finds where one CBOR data item ends, from its headers alone: the
// framer of a CBOR sequence (a watch body) or item (a list) on podwatch's
// one buffered reader. Scan is
// handed the item's bytes so far and called again, with the same bytes and
// more, until the end is in them; each header is read once, and string
// bodies are skipped, not scanned. The zero value works; Reset readies it
// for the next item.
type Framer struct {
	// MaxDepth bounds the item's nesting; 0 means MaxDepth.
	MaxDepth int

	pos     int      // next header to read
	pending []uint64 // per open array, map or tag: items still to come
}

var _ stream.Framer = (*Framer)(nil)

// Reset readies f for a new item.
func (f *Framer) Reset() { f.pos, f.pending = 0, f.pending[:0] }

func (f *Framer) maxDepth() int {
	if f.MaxDepth <= 0 {
		return MaxDepth
	}
	return f.MaxDepth
}

// Space is 0: the items of a CBOR sequence follow one another with nothing
// between them.
func (f *Framer) Space([]byte) int { return 0 }

// Scan continues framing the item that starts at v[0]. It returns the item's
// length once its last byte is in v, or -1 when v ends first. A length or
// count that cannot fit in limit bytes is the reader's too-large error,
// found from the header before any of the body is needed; a header it does
// not read, or nesting deeper than f.MaxDepth, is a *SyntaxError whose
// Offset is the index in v of the byte at fault.
func (f *Framer) Scan(v []byte, limit int) (int, error) {
	for {
		if f.pos >= len(v) {
			return -1, nil
		}
		h, ok, bad := ParseHead(v[f.pos:])
		if bad != "" {
			return -1, &SyntaxError{Offset: int64(f.pos), Msg: bad}
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
			if depth := f.maxDepth(); len(f.pending) >= depth {
				return -1, &SyntaxError{Offset: int64(f.pos), Msg: fmt.Sprintf("items nested more than %d deep", depth)}
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
func (f *Framer) extent(h Head, limit int) (next int, open uint64, err error) {
	after := f.pos + h.Size
	switch h.Major {
	case MajorBytes, MajorText:
		if h.Arg > uint64(limit) || after+int(h.Arg) > limit {
			return 0, 0, stream.ErrTooLarge
		}
		return after + int(h.Arg), 0, nil
	case MajorArray:
		open = h.Arg
	case MajorMap:
		if h.Arg > uint64(limit) {
			return 0, 0, stream.ErrTooLarge
		}
		open = 2 * h.Arg
	case MajorTag:
		open = 1
	}
	// Every item takes at least one byte, so more than limit cannot fit.
	if open > uint64(limit) {
		return 0, 0, stream.ErrTooLarge
	}
	return after, open, nil
}

// closeOne counts one item of the innermost open container as started.
// Containers whose last item has started stay open until that item is
// done (done pops them).
func (f *Framer) closeOne() {
	if n := len(f.pending); n > 0 {
		f.pending[n-1]--
	}
}

// done pops the containers whose items are all complete and says whether
// the whole item is.
func (f *Framer) done() bool {
	for n := len(f.pending); n > 0 && f.pending[n-1] == 0; n-- {
		f.pending = f.pending[:n-1]
	}
	return len(f.pending) == 0
}
