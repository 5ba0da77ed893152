package cborwire_test

import (
	"bytes"
	"testing"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
)

// The apiserver writes a map's members in an order that changes from item
// to item; the JSON does not: a map's members come in key order, nested
// maps too, so one object gives one JSON however it was written.
func TestMembersComeInKeyOrder(t *testing.T) {
	// {"b": {"y": 1, "x": 2}, "a": 3, "ab": 4} and the same in another order.
	one := []byte{0xa3, 0x41, 'b', 0xa2, 0x41, 'y', 0x01, 0x41, 'x', 0x02, 0x41, 'a', 0x03, 0x42, 'a', 'b', 0x04}
	two := []byte{0xa3, 0x42, 'a', 'b', 0x04, 0x41, 'a', 0x03, 0x41, 'b', 0xa2, 0x41, 'x', 0x02, 0x41, 'y', 0x01}
	const want = `{"a":3,"ab":4,"b":{"x":2,"y":1}}`
	var tc cborwire.Transcoder
	for _, item := range [][]byte{one, two} {
		got, err := tc.JSON(item, 0)
		if err != nil || string(got) != want {
			t.Errorf("JSON(% x) = %s, %v; want %s", item, got, err, want)
		}
	}
}

// In the real apiserver's recorded watch, events 2 and 3 (a status change)
// hold the same spec with its members in other orders; its JSON is one.
func TestRecordedSpecsAgree(t *testing.T) {
	r := stream.NewReader(bytes.NewReader(read(t, "watch.cborseq")), 1<<24)
	var f cborwire.Framer
	var tc cborwire.Transcoder
	var specs [][]byte
	for {
		item, off, err := r.Next(&f)
		if err != nil {
			break
		}
		js, err := tc.JSON(item, off)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(js, []byte(`"spec":{`)); i >= 0 {
			j := bytes.Index(js[i:], []byte(`},"status":`))
			if j < 0 {
				t.Fatalf("item at %d: no status after the spec", off)
			}
			specs = append(specs, bytes.Clone(js[i:i+j]))
		}
	}
	if len(specs) < 4 {
		t.Fatalf("%d items with a spec, want the recording's 4 or more", len(specs))
	}
	if !bytes.Equal(specs[2], specs[3]) {
		t.Errorf("events 2 and 3 hold one spec but give different JSON:\n%s\n%s", specs[2], specs[3])
	}
}
