package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// writeSample writes one value using every kind of Writer call.
func writeSample(w *Writer, at time.Time, labels map[string]string) {
	o := w.BeginObject()
	o.String("name", "web")
	o.String("empty", "")
	o.Int64("zero", 0)
	o.Int64("n", -7)
	o.Time("at", at)
	o.Time("never", time.Time{})
	o.StringMap("labels", labels)
	o.StringMap("none", nil)
	o.Field("list")
	a := w.BeginArray()
	a.Next()
	w.Bool(true)
	a.Next()
	w.Null()
	a.Next()
	w.Raw([]byte(`{"kept":1}`))
	a.Next()
	w.String("q\"<")
	a.End()
	o.End()
}

func TestWriter(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 37, 31, 500_000_000, time.FixedZone("", 3600))
	labels := map[string]string{"b": "2", "a": "1"}
	const want = `{"name":"web","n":-7,"at":"2026-12-02T10:37:31.5+01:00","labels":{"a":"1","b":"2"},"list":[true,null,{"kept":1},"q\"\u003c"]}`
	if got := string(Encode(func(w *Writer) { writeSample(w, at, labels) })); got != want {
		t.Fatalf("wrote\n%s\nwant\n%s", got, want)
	}
	w := NewWriter()
	writeSample(w, at, labels)
	w.Reset()
	w.StringMap(map[string]string{})
	if got := string(w.Bytes()); got != `{}` {
		t.Fatalf("after Reset, an empty map wrote %q, want {}", got)
	}
}

// Writing allocates nothing once the buffer has grown.
func TestWriterDoesNotAllocate(t *testing.T) {
	at := time.Now()
	labels := map[string]string{"app": "web", "tier": "front"}
	w := NewWriter()
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		writeSample(w, at, labels)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per write, want 0", allocs)
	}
}

// Strings, member names and map keys are written as encoding/json writes
// them, on the strings JSON writers part ways on.
func TestWriterEscapesAsEncodingJSON(t *testing.T) {
	for _, s := range quoteSeeds {
		m := map[string]string{s: s, "k": s}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter()
		w.StringMap(m)
		if got := w.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("StringMap of %q wrote\n%s\nencoding/json writes\n%s", s, got, want)
		}
		want, _ = json.Marshal(map[string]string{s: s})
		w.Reset()
		o := w.BeginObject()
		o.Field(s)
		w.String(s)
		o.End()
		if got := w.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("Field and String of %q wrote\n%s\nencoding/json writes\n%s", s, got, want)
		}
		w.Reset()
		o = w.BeginObject()
		o.FieldKey(MemberKey(s))
		w.String(s)
		o.End()
		if got := w.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("FieldKey(MemberKey) of %q wrote\n%s\nencoding/json writes\n%s", s, got, want)
		}
	}
}
