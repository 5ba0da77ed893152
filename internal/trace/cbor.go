package trace

import (
	"encoding/hex"

	"github.com/podwatch/podwatch/rest/cborwire"
)

// cborHead is how many of an item's first bytes the trace shows: the
// self-describe tag and the map header after it.
const cborHead = 4

// cborItemOf shows the opening of a CBOR watch item: its first bytes, and
// the tag it opens with.
func cborItemOf(item []byte) *CBORItem {
	ci := &CBORItem{Head: hex.EncodeToString(item[:min(cborHead, len(item))])}
	if h, ok, _ := cborwire.ParseHead(item); ok && h.Major == cborwire.MajorTag {
		ci.Tag = h.Arg
	}
	return ci
}
