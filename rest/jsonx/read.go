package jsonx

import "time"

// ReadStringMap reads a JSON object of strings; null gives a nil map.
func ReadStringMap(r *Reader) map[string]string {
	if r.Null() {
		return nil
	}
	m := map[string]string{}
	r.Object(func(k []byte) {
		key := string(k)
		m[key] = r.String()
	})
	return m
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
	s := r.String()
	if r.Err() != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
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
