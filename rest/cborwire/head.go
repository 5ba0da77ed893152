package cborwire

import (
	"encoding/binary"
	"fmt"
)

// SyntaxError is a CBOR item podwatch cannot read, at its stream offset (or
// its offset in the item when the caller gave 0 as the item's). The
// apiserver's items always read; this is a broken or hostile stream.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("cbor: %s at byte %d", e.Msg, e.Offset)
}

// Shift returns the error moved by bytes, as jsonx.SyntaxError.Shift does.
func (e *SyntaxError) Shift(bytes int64) error {
	return &SyntaxError{Offset: e.Offset + bytes, Msg: e.Msg}
}

// TooLargeError is an item whose JSON would be longer than the limit.
type TooLargeError struct{ Limit int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("cbor: item's JSON longer than %d bytes", e.Limit)
}

// The major types of RFC 8949.
const (
	MajorUint    = 0
	MajorNegInt  = 1
	MajorBytes   = 2
	MajorText    = 3
	MajorArray   = 4
	MajorMap     = 5
	MajorTag     = 6
	MajorSimple  = 7 // simple values and floats
	infoIndefLen = 31
)

// Head is one CBOR data item's header: its major type, its argument (a
// length, a count, a tag number, a value, or a float's bits) and its size.
type Head struct {
	Major byte
	Info  byte   // the low five bits of the first byte
	Arg   uint64 // the argument the header encodes
	Size  int    // header bytes
}

// ParseHead reads the header at v[0]. It returns ok false when v ends inside
// the header, and a message (for the caller's typed error) when the header
// is one podwatch does not read: reserved, or of indefinite length, which
// the apiserver never writes.
func ParseHead(v []byte) (h Head, ok bool, bad string) {
	if len(v) == 0 {
		return h, false, ""
	}
	h.Major, h.Info = v[0]>>5, v[0]&0x1f
	switch {
	case h.Info < 24:
		h.Arg, h.Size = uint64(h.Info), 1
		return h, true, ""
	case h.Info == infoIndefLen && h.Major == MajorSimple:
		return h, false, "a break outside an indefinite-length item"
	case h.Info == infoIndefLen:
		return h, false, "an indefinite-length item"
	case h.Info > 27:
		return h, false, fmt.Sprintf("reserved additional information %d", h.Info)
	}
	h.Size = 1 + 1<<(h.Info-24)
	if len(v) < h.Size {
		return h, false, ""
	}
	switch h.Size {
	case 2:
		h.Arg = uint64(v[1])
	case 3:
		h.Arg = uint64(binary.BigEndian.Uint16(v[1:]))
	case 5:
		h.Arg = uint64(binary.BigEndian.Uint32(v[1:]))
	default:
		h.Arg = binary.BigEndian.Uint64(v[1:])
	}
	return h, true, ""
}
