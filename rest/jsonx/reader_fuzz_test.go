package jsonx

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReaderValue reads arbitrary input as one generic value through the
// Reader's typed calls (Object, Array, String, Bool, Null, numbers by Raw) and
// checks it against encoding/json: the same verdict on any input (invalid
// UTF-8 in strings is accepted by both, control bytes rejected by both), and
// the same value, strings and keys decoded alike (surrogates included, and
// invalid UTF-8 as U+FFFD).
func FuzzReaderValue(f *testing.F) {
	if pod, err := os.ReadFile("../../testdata/pod.json"); err == nil {
		f.Add(pod)
	}
	for _, s := range []string{
		`{"a":[1,-2.5e+3,{"b":null}],"c":"\u00e9\ud83d\ude00\n","d":true,"e":false}`,
		`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `{"a":1,"a":2}`, `[01]`, `1.`, `-`, `"\x"`, `{"a" 1}`, ` [ ] `,
		"[\"\xff\", \"\xc3\"]", "{\"\x80\":\"\x1f\"}", "\"\x7f\"", "{\"\xff\\n\":\"a\\u00e9\xe2\x80\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		got := readAny(r)
		ok := r.Err() == nil && r.AtEnd()
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want any
		wantOK := json.Valid(data) && d.Decode(&want) == nil
		if ok != wantOK {
			t.Fatalf("%q: jsonx ok=%t (%v), encoding/json ok=%t", data, ok, r.Err(), wantOK)
		}
		// reflect.DeepEqual decides: cmp takes time exponential in the depth
		// of nested arrays, and stalled the fuzzer on them.
		if ok && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: value (-encoding/json +jsonx):\n%s", data, cmp.Diff(want, got))
		}
	})
}

// readAny reads one value as encoding/json decodes into any with UseNumber.
func readAny(r *Reader) any {
	switch r.Kind() {
	case '{':
		m := map[string]any{}
		r.Object(func(key []byte) {
			k := string(key) // key is scratch space the value's own keys reuse
			m[k] = readAny(r)
		})
		return m
	case '[':
		a := []any{}
		r.Array(func() { a = append(a, readAny(r)) })
		return a
	case '"':
		return r.String()
	case 't', 'f':
		return r.Bool()
	case 'n':
		r.Null()
		return nil
	default:
		return json.Number(r.Raw())
	}
}
