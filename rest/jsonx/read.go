package jsonx

import (
	"time"
	"unicode/utf8"
	"unsafe"
)

// ReadStringMap reads a JSON object of strings; null gives a nil map. A first
// pass over the object counts its members and bounds their bytes, so the map
// is made at its size and every key and value is cut from one allocation: a
// pod's labels or annotations cost three allocations, not two per member. A
// key or value kept after the map is dropped keeps that allocation alive,
// which is no more than the map held.
func ReadStringMap(r *Reader) map[string]string {
	if r.Null() {
		return nil
	}
	start := r.pos
	n, size := 0, 0
	r.Object(func(k []byte) {
		raw, _ := r.rawString()
		n++
		size += len(k) + len(raw) // an escaped value is longer than its text
		if !utf8.Valid(raw) {
			size += 2 * len(raw) // U+FFFD, three bytes, for each bad one
		}
	})
	if r.err != nil {
		return nil
	}
	end := r.pos
	r.pos = start
	m := make(map[string]string, n)
	buf := make([]byte, 0, size)
	r.Object(func(k []byte) {
		from := len(buf)
		buf = append(buf, k...)
		key := stringOf(buf[from:])
		from = len(buf)
		buf = r.AppendString(buf)
		m[key] = stringOf(buf[from:])
	})
	if r.err == nil && r.pos != end {
		r.Fail("object read differently twice") // cannot happen: the same bytes
	}
	return m
}

// stringOf returns b as a string without copying it; b must never change.
func stringOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ReadInt64Ptr reads an integer, or null as nil.
func ReadInt64Ptr(r *Reader) *int64 {
	if r.Null() {
		return nil
	}
	v := r.Int64()
	return &v
}

// ReadTime reads an RFC 3339 timestamp; null gives the zero time. A malformed
// timestamp is reported on the reader.
func ReadTime(r *Reader) time.Time {
	if r.Null() {
		return time.Time{}
	}
	raw, text := r.rawString()
	if r.Err() != nil {
		return time.Time{}
	}
	if !text {
		raw = unescape(nil, raw)
	}
	// The text is parsed in place: time.Parse keeps nothing of it, and the
	// error's text is copied before raw goes.
	t, err := time.Parse(time.RFC3339Nano, stringOf(raw))
	if err != nil {
		r.Fail("invalid timestamp: " + err.Error())
	}
	return t
}

// ReadTimePtr reads a timestamp, or null as nil.
func ReadTimePtr(r *Reader) *time.Time {
	if r.Null() {
		return nil
	}
	t := ReadTime(r)
	return &t
}
