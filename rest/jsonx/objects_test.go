package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readObjects(t *testing.T, doc string) (Objects, error) {
	t.Helper()
	var o Objects
	r := NewReader([]byte(doc))
	o.Read(r)
	if r.Err() == nil && !r.AtEnd() {
		t.Fatalf("Read left input unread at %d of %q", r.Pos(), doc)
	}
	return o, r.Err()
}

func sameJSON(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got %q is not JSON: %v", got, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Fatalf("value changed (-want +got):\n%s", diff)
	}
}

// Whatever the value, writing it back gives it again, as JSON.
func TestObjectsRoundTrip(t *testing.T) {
	fields := `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":` + strings.Repeat(`{"f:x":`, 20) + `{}` + strings.Repeat(`}`, 20) + `}`
	for _, tc := range []struct {
		name, doc string
		split     int // objects kept member by member
	}{
		{"entries", `[{"manager":"a","time":"2026-01-01T00:00:00Z","fieldsV1":` + fields + `},{"manager":"b","escaped \"key\"":1}]`, 2},
		{"one empty object", `[{}]`, 1},
		{"empty array", `[]`, 0},
		{"null", `null`, 0},
		{"not an array", `{"a":[1,2]}`, 0},
		{"not all objects", `[{"a":1}, 2, {"b":3}]`, 0},
		{"spaces", ` [ { "a" : 1 } , { "b" : [ ] } ] `, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := readObjects(t, tc.doc)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if o.Len() != tc.split {
				t.Fatalf("%d objects kept member by member, want %d", o.Len(), tc.split)
			}
			if !o.IsSet() {
				t.Fatalf("a value was read but IsSet is false")
			}
			sameJSON(t, tc.doc, o.Raw())
			got := written(func(w *ObjectWriter) { w.Objects("m", o) })
			sameJSON(t, `{"m":`+tc.doc+`}`, []byte(got))
		})
	}
}

// An unset Objects writes nothing.
func TestObjectsUnsetWritesNothing(t *testing.T) {
	if got := written(func(w *ObjectWriter) { w.Objects("m", Objects{}) }); got != `{}` {
		t.Fatalf("an unset member wrote %q, want {}", got)
	}
}

// Entries that differ only in a small member share their large ones.
func TestObjectsShareLargeMembersOfDifferingObjects(t *testing.T) {
	fields := `{"f:spec":{"f:containers":` + strings.Repeat(`{"k:{\"name\":\"c\"}":`, 10) + `{}` + strings.Repeat(`}`, 10) + `}}`
	if len(fields) < ShareMin {
		t.Fatalf("test value of %d bytes is below ShareMin", len(fields))
	}
	entry := func(time string) string {
		return `[{"manager":"m","time":"` + time + `","fieldsV1":` + fields + `}]`
	}
	a, errA := readObjects(t, entry("2026-01-01T00:00:00Z"))
	b, errB := readObjects(t, entry("2026-01-01T00:00:07Z"))
	if err := errors.Join(errA, errB); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !sameMemory(a.Member(0, "fieldsV1"), b.Member(0, "fieldsV1")) {
		t.Fatalf("equal field sets of entries with different times are two copies, want one shared")
	}
	if bytes.Equal(a.Member(0, "time"), b.Member(0, "time")) {
		t.Fatalf("the times came out equal: %q", a.Member(0, "time"))
	}
}

// Malformed input is an error at its place, wherever in the array it is.
func TestObjectsMalformed(t *testing.T) {
	for _, doc := range []string{`[{"a":1},{"b":}]`, `[{"a":1}`, `[{"a":1},2,]`, `[`, `[{"a" 1}]`} {
		if _, err := readObjects(t, doc); err == nil {
			t.Fatalf("%q: no error", doc)
		}
	}
}

// keepWithM reads the object doc as a decoder would that holds member "m"
// with KeepObjects and keeps the others.
func keepWithM(t *testing.T, doc string) (Extra, Objects) {
	t.Helper()
	var e Extra
	var o Objects
	r := NewReader([]byte(doc))
	r.Object(func(name []byte) {
		if string(name) == "m" {
			e.KeepObjects(r, name, &o)
			return
		}
		e.Keep(r, name)
	})
	if err := r.Err(); err != nil {
		t.Fatalf("read %s: %v", doc, err)
	}
	return e, o
}

// written is what write puts in an object.
func written(write func(o *ObjectWriter)) string {
	return string(Encode(func(w *Writer) {
		o := w.BeginObject()
		write(&o)
		o.End()
	}))
}

// A member held by KeepObjects is written back in its place among the others,
// so output keeps the order the server wrote.
func TestKeepObjectsKeepsOrder(t *testing.T) {
	doc := `{"a":1,"m":[{"x":1}],"b":{"c":2}}`
	e, o := keepWithM(t, doc)
	if got := written(func(w *ObjectWriter) { w.ExtraWith(e, o) }); got != doc {
		t.Fatalf("wrote %s, want %s", got, doc)
	}
	if got, want := written(func(w *ObjectWriter) { w.Extra(e) }), `{"a":1,"b":{"c":2}}`; got != want {
		t.Fatalf("Extra wrote %s, want %s: the held member is ExtraWith's to write", got, want)
	}
}

// A member KeepObjects holds that comes twice is written once, with the
// value that came last, at the place where it came first.
func TestKeepObjectsTwice(t *testing.T) {
	e, o := keepWithM(t, `{"m":[{"x":1}],"a":1,"m":[{"y":2}]}`)
	if got, want := written(func(w *ObjectWriter) { w.ExtraWith(e, o) }), `{"m":[{"y":2}],"a":1}`; got != want {
		t.Fatalf("wrote %s, want %s", got, want)
	}
}
