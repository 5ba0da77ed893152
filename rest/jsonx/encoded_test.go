package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// upper is an Encoding whose runs are lists of member names, written as
// members whose values are their lengths: enough to see the mechanism.
var upper = NewEncoding(func(o *ObjectWriter, runs []Field) {
	for _, r := range runs {
		o.Int64(string(r.Value), int64(len(r.Value)))
	}
}, func(runs []Field, name string) []byte {
	for _, r := range runs {
		if string(r.Value) == name {
			return []byte("1")
		}
	}
	return nil
})

// Runs kept in an Encoding are written, by the same Extra call as JSON
// members, through their Encoding; Get finds their members; and a member
// whose name reads like a run's mark is still a member. No name read from
// JSON can (the Reader decodes 0xff as U+FFFD), so the look-alike is made.
func TestExtraHoldsEncodedRuns(t *testing.T) {
	var e Extra
	r := NewReader([]byte("{\"a\":1,\"\xff\":2}"))
	r.Object(func(name []byte) { e.Keep(r, name) })
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if e[1].Name != "\uFFFD" {
		t.Fatalf("the member named 0xff in JSON is named %q, want U+FFFD", e[1].Name)
	}
	e[1].Name = strings.Clone(upper.mark)
	e.KeepEncoded(upper, []byte("bb"))
	e.KeepEncoded(upper, []byte("ccc"))
	got := string(Encode(func(w *Writer) {
		o := w.BeginObject()
		o.Extra(e)
		o.End()
	}))
	mark, _ := json.Marshal(upper.mark)
	if want := `{"a":1,` + string(mark) + `:2,"bb":2,"ccc":3}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if e[1].Name != upper.mark {
		t.Fatalf("the look-alike member is named %q, want %q", e[1].Name, upper.mark)
	}
	if e[1].Encoding() != nil || e[2].Encoding() != upper {
		t.Errorf("Encoding: the look-alike member %v, the run %v; want nil and upper", e[1].Encoding(), e[2].Encoding())
	}
	if v := e.Get("ccc"); string(v) != "1" {
		t.Errorf(`Get("ccc") = %q, want the encoding's "1"`, v)
	}
	if unsafe.Sizeof(Field{}) != 40 {
		t.Errorf("a Field takes %d bytes; it holds a name and a value only (40)", unsafe.Sizeof(Field{}))
	}
}
