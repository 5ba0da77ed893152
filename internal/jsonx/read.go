package jsonx

import (
	"slices"
	"time"

	jsoniter "github.com/json-iterator/go"
)

// ReadStringMap reads a JSON object of strings; null gives a nil map.
func ReadStringMap(it *jsoniter.Iterator) map[string]string {
	if it.ReadNil() {
		return nil
	}
	m := map[string]string{}
	it.ReadMapCB(func(it *jsoniter.Iterator, k string) bool {
		m[k] = it.ReadString()
		return it.Error == nil
	})
	return m
}

// WriteStringMap writes m with its keys sorted.
func WriteStringMap(s *jsoniter.Stream, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w := Begin(s)
	for _, k := range keys {
		w.Field(k)
		s.WriteString(m[k])
	}
	w.End()
}

// ReadInt64Ptr reads an integer, or null as nil.
func ReadInt64Ptr(it *jsoniter.Iterator) *int64 {
	if it.ReadNil() {
		return nil
	}
	v := it.ReadInt64()
	return &v
}

// ReadTime reads an RFC 3339 timestamp; null gives the zero time. A malformed
// timestamp is reported on the iterator.
func ReadTime(it *jsoniter.Iterator) time.Time {
	if it.ReadNil() {
		return time.Time{}
	}
	s := it.ReadString()
	if it.Error != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		it.ReportError("read timestamp", err.Error())
	}
	return t
}

// ReadTimePtr reads a timestamp, or null as nil.
func ReadTimePtr(it *jsoniter.Iterator) *time.Time {
	if it.ReadNil() {
		return nil
	}
	t := ReadTime(it)
	return &t
}
