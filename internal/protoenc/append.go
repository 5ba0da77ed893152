package protoenc

import "encoding/binary"

// Wire types and the envelope's magic, facts of the format (protowire reads
// them with its own).
const (
	wireVarint = 0
	wireBytes  = 2
)

var magic = []byte("k8s\x00")

// The Append functions write the wire format's building blocks: what the
// tests build streams with, and what the Encoder builds on.

// AppendVarint appends x as a varint.
func AppendVarint(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) }

// AppendBytesField appends field num, length-delimited, holding v.
func AppendBytesField(b []byte, num int, v []byte) []byte {
	b = AppendVarint(b, uint64(num)<<3|wireBytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// AppendVarintField appends field num holding the varint x.
func AppendVarintField(b []byte, num int, x uint64) []byte {
	return AppendVarint(AppendVarint(b, uint64(num)<<3|wireVarint), x)
}

// AppendEnvelope appends an envelope of the object raw of the given type, as
// the apiserver writes one: magic, typeMeta, raw, and the two empty strings.
func AppendEnvelope(b []byte, apiVersion, kind string, raw []byte) []byte {
	var tm []byte
	tm = AppendBytesField(tm, 1, []byte(apiVersion))
	tm = AppendBytesField(tm, 2, []byte(kind))
	b = append(b, magic...)
	b = AppendBytesField(b, 1, tm)
	b = AppendBytesField(b, 2, raw)
	b = AppendBytesField(b, 3, nil)
	return AppendBytesField(b, 4, nil)
}

// AppendWatchFrame appends one watch frame: its 4-byte big-endian length,
// then a WatchEvent of type typ whose object is envelope.
func AppendWatchFrame(b []byte, typ string, envelope []byte) []byte {
	var ev []byte
	ev = AppendBytesField(ev, 1, []byte(typ))
	ev = AppendBytesField(ev, 2, AppendBytesField(nil, 1, envelope))
	b = binary.BigEndian.AppendUint32(b, uint32(len(ev)))
	return append(b, ev...)
}
