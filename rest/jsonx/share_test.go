package jsonx

import (
	"bytes"
	"hash/maphash"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func sameMemory(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// entries is how many shared copies the table holds under v's hash.
func entries(v []byte) int {
	h := maphash.Bytes(shareSeed, v)
	shared.Lock()
	defer shared.Unlock()
	return len(shared.m[h])
}

func TestShare(t *testing.T) {
	v := []byte(`{"env":[` + strings.Repeat(`{"name":"A","value":"b"},`, 10) + `{}]}`)
	a := Share(bytes.Clone(v))
	b := Share(bytes.Clone(v))
	if !bytes.Equal(a, v) {
		t.Fatalf("Share gave %q, want %q", a, v)
	}
	if !sameMemory(a, b) {
		t.Fatalf("two equal values got two copies, want one shared")
	}
	other := bytes.Clone(v)
	other[len(other)-3] = ' '
	c := Share(other)
	if sameMemory(a, c) || !bytes.Equal(c, other) {
		t.Fatalf("a different value shared the first one's copy")
	}
	in := bytes.Clone(other)
	d := Share(in)
	in[0] = 'X'
	if !bytes.Equal(d, other) {
		t.Fatalf("Share kept its argument: changing it changed the shared value to %q", d)
	}
	if cap(a) != len(a) {
		t.Fatalf("cap %d, want %d, so that an append copies instead of writing into the shared value", cap(a), len(a))
	}
	if Share(nil) != nil {
		t.Fatalf("Share(nil) is not nil")
	}
}

// A value nobody holds any more leaves the table: it never keeps memory
// alive by itself.
func TestShareForgetsCollectedValues(t *testing.T) {
	v := []byte(`"` + strings.Repeat("forget me ", 20) + time.Now().String() + `"`)
	held := Share(v)
	if got := entries(v); got != 1 {
		t.Fatalf("%d entries for a shared value, want 1", got)
	}
	runtime.KeepAlive(held)
	held = nil
	deadline := time.Now().Add(10 * time.Second)
	for entries(v) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the entry of a value no one holds is still there after 10s of collections")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// Keep copies every value: the input can be overwritten once decoding is done.
// Large values are shared between inputs, small ones are not.
func TestKeepCopies(t *testing.T) {
	large := `[` + strings.Repeat(`"x",`, ShareMin/4) + `"y"]`
	doc := `{"small":{"a":1},"large":` + large + `}`
	keep := func(data []byte) Extra {
		var e Extra
		r := NewReader(data)
		r.Object(func(name []byte) { e.Keep(r, name) })
		if err := r.Err(); err != nil {
			t.Fatalf("Keep: %v", err)
		}
		return e
	}
	in1, in2 := []byte(doc), []byte(doc)
	e1, e2 := keep(in1), keep(in2)
	for i := range in1 {
		in1[i], in2[i] = '#', '#'
	}
	for _, e := range []Extra{e1, e2} {
		if got := string(e.Get("small")); got != `{"a":1}` {
			t.Fatalf("small value %q after the input was overwritten, want {\"a\":1}", got)
		}
		if got := string(e.Get("large")); got != large {
			t.Fatalf("large value %q after the input was overwritten, want %q", got, large)
		}
	}
	if !sameMemory(e1.Get("large"), e2.Get("large")) {
		t.Fatalf("equal large values of two inputs are two copies, want one shared")
	}
	if sameMemory(e1.Get("small"), e2.Get("small")) {
		t.Fatalf("small values of two inputs share memory, want each input's own arena")
	}
}

func BenchmarkShareHit(b *testing.B) {
	v := []byte(strings.Repeat("0123456789abcdef", 1024))
	keep := Share(v)
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		Share(v)
	}
	runtime.KeepAlive(keep)
}
