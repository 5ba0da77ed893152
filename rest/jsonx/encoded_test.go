package jsonx

import (
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
// members, through their Encoding; Get finds their members; and a JSON
// member whose name reads like a run's mark is still a member.
func TestExtraHoldsEncodedRuns(t *testing.T) {
	var e Extra
	r := NewReader([]byte("{\"a\":1,\"\xff\\u0000encoded:0\":2}"))
	r.Object(func(name []byte) { e.Keep(r, name) })
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	e.KeepEncoded(upper, []byte("bb"))
	e.KeepEncoded(upper, []byte("ccc"))
	got := string(Encode(func(w *Writer) {
		o := w.BeginObject()
		o.Extra(e)
		o.End()
	}))
	if want := "{\"a\":1,\"\\ufffd\\u0000encoded:0\":2,\"bb\":2,\"ccc\":3}"; got != want {
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
