package jsonx

import (
	"slices"
	"sync"
	"time"

	jsoniter "github.com/json-iterator/go"
)

// Writer encodes JSON into a buffer it owns and reuses. Values are written in
// order: the WriteJSON method of a type writes one value, an ObjectWriter
// writes an object's members. Strings and member names are escaped by
// AppendQuote, as encoding/json escapes them; Raw values and the members an
// Extra kept are written as they are, the bytes that were read. A Writer does
// not check that what is written is one well-formed value; writing it so is
// the caller's part. It is not safe for concurrent use.
type Writer struct {
	s *jsoniter.Stream
}

// NewWriter returns a Writer with an empty buffer.
func NewWriter() *Writer {
	return &Writer{s: jsoniter.NewStream(jsoniter.ConfigDefault, nil, 1024)}
}

// Bytes returns what was written since the last Reset. The bytes are the
// Writer's: they change with the next write.
func (w *Writer) Bytes() []byte { return w.s.Buffer() }

// Reset empties the buffer, keeping its storage.
func (w *Writer) Reset() { w.s.Reset(nil) }

var writers = sync.Pool{New: func() any { return NewWriter() }}

// Encode has write write one value on a pooled Writer and returns a copy of
// it: the way to implement json.Marshaler with a WriteJSON method.
func Encode(write func(*Writer)) []byte {
	w := writers.Get().(*Writer)
	w.Reset()
	write(w)
	out := slices.Clone(w.Bytes())
	writers.Put(w)
	return out
}

// String writes a string, escaped as encoding/json escapes it.
func (w *Writer) String(v string) { w.s.SetBuffer(appendQuote(w.s.Buffer(), bytesOf(v))) }

// Int64 writes an integer.
func (w *Writer) Int64(v int64) { w.s.WriteInt64(v) }

// Bool writes true or false.
func (w *Writer) Bool(v bool) { w.s.WriteBool(v) }

// Null writes null.
func (w *Writer) Null() { w.s.WriteNil() }

// Time writes a timestamp as FormatTime formats it.
func (w *Writer) Time(t time.Time) {
	// Formatted in place: a timestamp holds nothing a JSON string escapes.
	var buf [48]byte
	b := append(buf[:0], '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	w.s.Write(append(b, '"'))
}

// Raw writes a value that is already encoded JSON.
func (w *Writer) Raw(v []byte) { w.s.Write(v) }

// StringMap writes a map of strings, with its keys sorted so output is
// deterministic; a nil map is written as {}.
func (w *Writer) StringMap(m map[string]string) {
	var small [16]string // the keys of most maps, without an allocation
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := w.BeginObject()
	for _, k := range keys {
		o.Field(k)
		w.String(m[k])
	}
	o.End()
}

// BeginObject starts an object; the ObjectWriter writes its members and ends it.
func (w *Writer) BeginObject() ObjectWriter {
	w.s.WriteObjectStart()
	return ObjectWriter{w: w}
}

// BeginArray starts an array; the ArrayWriter separates its elements and ends it.
func (w *Writer) BeginArray() ArrayWriter {
	w.s.WriteArrayStart()
	return ArrayWriter{w: w}
}

// ArrayWriter writes one array's elements on a Writer.
type ArrayWriter struct {
	w    *Writer
	more bool
}

// Next readies the next element, which the caller then writes on the Writer.
func (a *ArrayWriter) Next() {
	if a.more {
		a.w.s.WriteMore()
	}
	a.more = true
}

// End closes the array.
func (a *ArrayWriter) End() { a.w.s.WriteArrayEnd() }

// ObjectWriter writes one object's members on a Writer, inserting the commas
// and applying the API's omitempty rules: the typed member methods write
// nothing for a zero value.
type ObjectWriter struct {
	w    *Writer
	more bool
}

// End closes the object.
func (o *ObjectWriter) End() { o.w.s.WriteObjectEnd() }

// Field writes a member name; the caller writes the value next, on the Writer.
func (o *ObjectWriter) Field(name string) {
	if o.more {
		o.w.s.WriteMore()
	}
	o.w.s.SetBuffer(append(appendQuote(o.w.s.Buffer(), bytesOf(name)), ':'))
	o.more = true
}

// MemberKey returns name as FieldKey writes it: quoted, escaped as Field
// escapes it, and followed by a colon.
func MemberKey(name string) []byte { return append(AppendQuote(nil, name), ':') }

// FieldKey writes a member name made by MemberKey; the caller writes the
// value next. It saves escaping a name written for every object.
func (o *ObjectWriter) FieldKey(key []byte) {
	if o.more {
		o.w.s.WriteMore()
	}
	o.w.s.Write(key)
	o.more = true
}

// String writes a string member unless it is empty.
func (o *ObjectWriter) String(name, v string) {
	if v != "" {
		o.Field(name)
		o.w.String(v)
	}
}

// Int64 writes an integer member unless it is zero.
func (o *ObjectWriter) Int64(name string, v int64) {
	if v != 0 {
		o.Field(name)
		o.w.Int64(v)
	}
}

// Int64Ptr writes an integer member when set, zero included.
func (o *ObjectWriter) Int64Ptr(name string, v *int64) {
	if v != nil {
		o.Field(name)
		o.w.Int64(*v)
	}
}

// StringMap writes a map of strings unless it is nil, with keys in sorted order so
// output is deterministic.
func (o *ObjectWriter) StringMap(name string, m map[string]string) {
	if m != nil {
		o.Field(name)
		o.w.StringMap(m)
	}
}

// Raw writes a member whose value is already encoded JSON.
func (o *ObjectWriter) Raw(name string, v []byte) {
	o.Field(name)
	o.w.Raw(v)
}

// Time writes a timestamp member unless it is the zero time.
func (o *ObjectWriter) Time(name string, t time.Time) {
	if !t.IsZero() {
		o.Field(name)
		o.w.Time(t)
	}
}

// Extra writes back every kept member but those KeepObjects held elsewhere
// (ExtraWith writes those too).
func (o *ObjectWriter) Extra(e Extra) {
	for i := 0; i < len(e); i++ {
		f := e[i]
		switch enc := f.Encoding(); {
		case enc != nil:
			i += o.writeEncoded(e[i:], enc) - 1
		case f.Value != nil:
			o.Raw(f.Name, f.Value)
		}
	}
}

// ExtraWith writes back every kept member as Extra does, and v at the place
// KeepObjects marked for it.
func (o *ObjectWriter) ExtraWith(e Extra, v Objects) {
	for i := 0; i < len(e); i++ {
		f := e[i]
		switch enc := f.Encoding(); {
		case enc != nil:
			i += o.writeEncoded(e[i:], enc) - 1
		case f.Value == nil:
			o.Objects(f.Name, v)
		default:
			o.Raw(f.Name, f.Value)
		}
	}
}

// Objects writes member name unless v is unset.
func (o *ObjectWriter) Objects(name string, v Objects) {
	if v.IsSet() {
		o.Field(name)
		v.write(o.w)
	}
}
