package protowire

import (
	"encoding/binary"

	"github.com/podwatch/podwatch/internal/stream"
)

// FrameHeader is the length prefix of a watch frame: 4 bytes, big-endian.
const FrameHeader = 4

// Framer frames a protobuf watch body (…;stream=watch): each frame is a
// FrameHeader-byte length and that many bytes of a WatchEvent message. It
// is the framer of that body on podwatch's one buffered reader; the frames
// it returns keep their prefix.
// The zero value works.
type Framer struct {
	length uint32 // what the last prefix seen announced
}

var _ stream.Framer = (*Framer)(nil)

// Reset readies f for a new frame.
func (f *Framer) Reset() { f.length = 0 }

// Space is 0: frames follow one another with nothing between them.
func (f *Framer) Space([]byte) int { return 0 }

// Scan frames the frame that starts at v[0]. It returns the frame's whole
// length, prefix included, once all of it is in v, and -1 while v ends
// first. Once the prefix is in v, a frame longer than limit is
// refused with the reader's too-large error, before any of its body is
// needed.
func (f *Framer) Scan(v []byte, limit int) (int, error) {
	if len(v) < FrameHeader {
		return -1, nil
	}
	f.length = binary.BigEndian.Uint32(v)
	if uint64(f.length)+FrameHeader > uint64(limit) {
		return -1, stream.ErrTooLarge
	}
	if n := FrameHeader + int(f.length); n <= len(v) {
		return n, nil
	}
	return -1, nil
}

// Length is the body length the last prefix Scan read announced: what a
// frame too large, or cut short, was to hold.
func (f *Framer) Length() uint32 { return f.length }
