package jsonx

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzSkipValid holds the skip to encoding/json.Valid as the oracle, verdict for
// verdict (invalid UTF-8 is accepted and control bytes in strings rejected by
// both), and to the recursive reference: the same end, and an error at the same
// offset. It also checks that the fast path itself accepts every
// valid value it can follow, so that a fast path that gave up on everything
// (and left the work to the checked skip) would fail here too.
func FuzzSkipValid(f *testing.F) {
	if pod, err := os.ReadFile("../../testdata/pod.json"); err == nil {
		f.Add(pod)
	}
	for _, s := range []string{
		`{"a":[1,{"b":null}],"c":"\u00e9"}`, `[]`, `{"a":}`, `"x`, `[1,]`, `{"a" :1 , "b":[ ] }`,
		"\"\xff\xfe\"", "\"a\x01\"", "\"a\x7f\"", `"\ud800"`, `"\/\b\f\n\r\t\"\\"`, `"\u12g4"`,
		`-0.5e+10`, `1E5`, `0.`, `-`, `01`, `1x`, `[1 2]`, ` { } `, "\t[\r\n]\n", "[\x00]", `{"a":1}}`,
		strings.Repeat("[", fastDepth) + strings.Repeat("]", fastDepth),
		strings.Repeat(`{"a":[`, fastDepth/2+1) + strings.Repeat("]}", fastDepth/2+1),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, slow := NewReader(data), NewReader(data)
		fast.Skip()
		slow.skipRecursive()
		if errorOffset(fast.Err()) != errorOffset(slow.Err()) || fast.Pos() != slow.Pos() {
			t.Fatalf("%q: skip: pos %d err %v; recursive: pos %d err %v", data, fast.Pos(), fast.Err(), slow.Pos(), slow.Err())
		}
		if ok, want := fast.Err() == nil && fast.AtEnd(), json.Valid(data); ok != want {
			t.Fatalf("%q: skip accepts %t (%v), encoding/json.Valid %t", data, ok, fast.Err(), want)
		}
		end, ok := skipFast(data, 0, maxDepth)
		if ok && (slow.Err() != nil || end != slow.Pos()) {
			t.Fatalf("%q: fast path ends at %d, recursive at %d (%v)", data, end, slow.Pos(), slow.Err())
		}
		if !ok && slow.Err() == nil && nesting(data[:slow.Pos()]) <= fastDepth {
			t.Fatalf("%q: fast path declines a valid value nested %d deep", data, nesting(data[:slow.Pos()]))
		}
	})
}

// errorOffset is the offset of a *SyntaxError, -1 for no error and -2 for
// another error. The skips word some errors differently; the place is what
// must agree.
func errorOffset(err error) int64 {
	var se *SyntaxError
	switch {
	case err == nil:
		return -1
	case errors.As(err, &se):
		return se.Offset
	}
	return -2
}

// nesting is the deepest nesting of brackets in a well-formed value.
func nesting(value []byte) int {
	deepest, depth, inString := 0, 0, false
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
