package protowire

import (
	"encoding/binary"
	"fmt"
)

// SyntaxError is malformed protobuf: a truncated or overlong varint, a
// length past the end of its message, a wire type the field cannot have. Offset
// is the stream offset of the byte at fault.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("protobuf: %s at byte %d", e.Msg, e.Offset)
}

// Shift returns the error moved by bytes, as jsonx.SyntaxError.Shift does.
func (e *SyntaxError) Shift(bytes int64) error {
	return &SyntaxError{Offset: e.Offset + bytes, Msg: e.Msg}
}

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// occ is one occurrence of a field in a message: its number, wire type and
// value (the varint or fixed value, or the bytes of a length-delimited one).
type occ struct {
	num  int32
	wire uint8
	val  uint64
	data []byte
	at   int64 // stream offset of the value
}

// scanFields appends the fields of msg, whose first byte is at stream offset
// base, to dst.
func scanFields(dst []occ, msg []byte, base int64) ([]occ, error) {
	for p := 0; p < len(msg); {
		key, n := uvarint(msg[p:])
		if n <= 0 {
			return dst, badVarint(base+int64(p), n)
		}
		num, wire := key>>3, uint8(key&7)
		if num == 0 || num > 1<<29-1 {
			return dst, &SyntaxError{Offset: base + int64(p), Msg: fmt.Sprintf("field number %d", num)}
		}
		p += n
		o := occ{num: int32(num), wire: wire, at: base + int64(p)}
		switch wire {
		case wireVarint:
			o.val, n = uvarint(msg[p:])
			if n <= 0 {
				return dst, badVarint(o.at, n)
			}
			p += n
		case wireFixed64:
			if len(msg)-p < 8 {
				return dst, truncated(o.at, "a fixed64 value")
			}
			o.val = binary.LittleEndian.Uint64(msg[p:])
			p += 8
		case wireFixed32:
			if len(msg)-p < 4 {
				return dst, truncated(o.at, "a fixed32 value")
			}
			o.val = uint64(binary.LittleEndian.Uint32(msg[p:]))
			p += 4
		case wireBytes:
			l, n := uvarint(msg[p:])
			if n <= 0 {
				return dst, badVarint(o.at, n)
			}
			p += n
			if l > uint64(len(msg)-p) {
				return dst, truncated(o.at, fmt.Sprintf("%d bytes", l))
			}
			o.at = base + int64(p)
			o.data = msg[p : p+int(l)]
			p += int(l)
		default:
			return dst, &SyntaxError{Offset: base + int64(p-n), Msg: fmt.Sprintf("wire type %d", wire)}
		}
		dst = append(dst, o)
	}
	return dst, nil
}

// uvarint decodes a varint of at most 10 bytes; n is its length, 0 when b
// ends inside it, negative when it overflows 64 bits.
func uvarint(b []byte) (uint64, int) { return binary.Uvarint(b) }

func badVarint(at int64, n int) error {
	if n == 0 {
		return truncated(at, "a varint")
	}
	return &SyntaxError{Offset: at, Msg: "varint longer than 64 bits"}
}

func truncated(at int64, what string) error {
	return &SyntaxError{Offset: at, Msg: "message ends inside " + what}
}
