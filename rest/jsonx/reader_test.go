package jsonx

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReaderValues(t *testing.T) {
	r := NewReader([]byte(` {"s":"a\"b\\c\u00e9\ud83d\ude00\n","i":-42,"b":true,"n":null,"a":[1,2.5e3,{}],"o":{"k":"v"},"k\u0065y":"x"} `))
	got := map[string]any{}
	r.Object(func(key []byte) {
		switch string(key) {
		case "s", "key":
			got[string(key)] = r.String()
		case "i":
			got["i"] = r.Int64()
		case "b":
			got["b"] = r.Bool()
		case "n":
			got["n"] = r.Null()
		default:
			got[string(key)] = string(r.Raw())
		}
	})
	if err := r.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	if !r.AtEnd() {
		t.Fatalf("AtEnd = false after the only value")
	}
	want := map[string]any{"s": "a\"b\\cé😀\n", "i": int64(-42), "b": true, "n": true,
		"a": `[1,2.5e3,{}]`, "o": `{"k":"v"}`, "key": "x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("values (-want +got):\n%s", diff)
	}
}

func TestReaderErrorsCarryOffsets(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int64
	}{
		{`{"a":}`, 5},
		{`{"a" 1}`, 5},
		{`{"a":1,}`, 7},
		{`[1 2]`, 3},
		{`{"a":"x`, 7},
		{`{"a":"\q"}`, 7},
		{`{"a":tru}`, 5},
		{`{"a":01}`, 5},
		{`{"a":1.}`, 7},
		{"{\"a\":\"\x01\"}", 6},
		{`]`, 0},
		{``, 0},
	} {
		r := NewReader([]byte(tc.in))
		r.Base = 100
		r.Skip()
		var se *SyntaxError
		if err := r.Err(); !errors.As(err, &se) {
			t.Errorf("Skip(%q): error %v, want a *SyntaxError", tc.in, err)
			continue
		}
		if se.Offset != 100+tc.offset {
			t.Errorf("Skip(%q): offset %d (%v), want %d", tc.in, se.Offset, se, 100+tc.offset)
		}
	}
}

func TestReaderDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	for name, skip := range map[string]func(*Reader){"fast": (*Reader).Skip, "recursive": (*Reader).skipRecursive} {
		r := NewReader([]byte(deep))
		skip(r)
		if r.Err() == nil {
			t.Errorf("%s: %d nested arrays accepted, want a depth error", name, maxDepth+1)
		}
	}
}

// FuzzSkip holds the fast skip to the recursive reference and to encoding/json's
// idea of a valid document.
func FuzzSkip(f *testing.F) {
	if pod, err := os.ReadFile("../../testdata/pod.json"); err == nil {
		f.Add(pod)
	}
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `[]`, `{"a":}`, `"x`, `[1,]`, `{"a" :1 , "b":[ ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, slow := NewReader(data), NewReader(data)
		fast.Skip()
		slow.skipRecursive()
		if (fast.Err() == nil) != (slow.Err() == nil) || fast.Pos() != slow.Pos() {
			t.Fatalf("fast skip: pos %d err %v; recursive: pos %d err %v", fast.Pos(), fast.Err(), slow.Pos(), slow.Err())
		}
		if fast.Err() == nil && fast.AtEnd() && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		// skipFast, where it answers alone, answers as the reference.
		if end, ok := skipFast(data, 0, maxDepth); ok && (slow.Err() != nil || end != slow.Pos()) {
			t.Fatalf("skipFast took %q to byte %d; recursive: pos %d err %v", data, end, slow.Pos(), slow.Err())
		}
	})
}

// The recorded pod, as the apiserver writes JSON, is skipped by skipFast
// alone, to its last byte, as the reference skips it.
func TestSkipFastTakesARealPod(t *testing.T) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	ref := NewReader(pod)
	ref.skipRecursive()
	end, ok := skipFast(pod, 0, maxDepth)
	if !ok || ref.Err() != nil || end != ref.Pos() {
		t.Fatalf("skipFast: end %d ok %v; reference: pos %d err %v", end, ok, ref.Pos(), ref.Err())
	}
}

// BenchmarkSkip skips the recorded pod whole, beside encoding/json.Valid on
// the same bytes, as a yardstick that moves with the machine.
func BenchmarkSkip(b *testing.B) {
	pod, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("jsonx", func(b *testing.B) {
		var r Reader
		b.SetBytes(int64(len(pod)))
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(pod)
			r.Skip()
			if r.Err() != nil {
				b.Fatal(r.Err())
			}
		}
	})
	b.Run("encoding/json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(pod)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(pod) {
				b.Fatal("invalid")
			}
		}
	})
}
