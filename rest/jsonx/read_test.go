package jsonx

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadStringMap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]string
	}{
		{`null`, nil},
		{`{}`, map[string]string{}},
		{` { "app" : "web", "":"", "\u00e9":"a\"b\\c\n", "dup":"1", "dup":"2", "k":"" } `,
			map[string]string{"app": "web", "": "", "é": "a\"b\\c\n", "dup": "2", "k": ""}},
		// Invalid UTF-8 reads as U+FFFD, a byte each, as encoding/json reads it.
		{"{\"\xff\":\"a\xffb\",\"k\":\"\xe2\x80\\n\"}", map[string]string{"\uFFFD": "a\uFFFDb", "k": "\uFFFD\uFFFD\n"}},
	} {
		r := NewReader([]byte(tc.in))
		got := ReadStringMap(r)
		if err := r.Err(); err != nil || !r.AtEnd() {
			t.Fatalf("ReadStringMap(%s): err %v, at end %t", tc.in, err, r.AtEnd())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ReadStringMap(%s) (-want +got):\n%s", tc.in, diff)
		}
		if (got == nil) != (tc.want == nil) {
			t.Errorf("ReadStringMap(%s) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

// TestReadStringMapAllocs bounds a map's allocations: the map made at its size
// (Go takes up to four allocations for a map of more than eight entries) and
// one buffer for all its keys and values, where a string per key and per
// value would take 18 more.
func TestReadStringMapAllocs(t *testing.T) {
	in := []byte(`{"app":"web-frontend","pod-template-hash":"7d9f8b6c5d","tier":"frontend","team":"payments",` +
		`"version":"v1.4.2","env":"production","region":"eu-west-1","zone":"eu-west-1a","track":"stable"}`)
	r := NewReader(in)
	var m map[string]string
	allocs := testing.AllocsPerRun(50, func() {
		r.Reset(in)
		m = ReadStringMap(r)
	})
	if r.Err() != nil || len(m) != 9 || m["zone"] != "eu-west-1a" {
		t.Fatalf("ReadStringMap: %v, %v", r.Err(), m)
	}
	if allocs > 5 {
		t.Errorf("ReadStringMap of 9 members: %.0f allocations, want at most 5", allocs)
	}
	// U+FFFD is three bytes where the input had one: the buffer is made
	// large enough for it, and no allocation is added.
	bad := []byte("{\"a\":\"\xff\xff\xff\xff\",\"\xff\":\"\xfe\"}")
	good := []byte(`{"a":"bbbb","c":"d"}`)
	count := func(in []byte) float64 {
		return testing.AllocsPerRun(50, func() { r.Reset(in); m = ReadStringMap(r) })
	}
	if g, b := count(good), count(bad); b > g {
		t.Errorf("ReadStringMap with invalid UTF-8: %.0f allocations, valid: %.0f", b, g)
	}
	if m["a"] != strings.Repeat("\uFFFD", 4) || m["\uFFFD"] != "\uFFFD" {
		t.Errorf("ReadStringMap with invalid UTF-8 = %q", m)
	}
}

func TestReadStringMapErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int64
	}{
		{`{"a":1}`, 5},
		{`{"a":"x","b":[]}`, 13},
		{`{"a":"x"`, 8},
		{`{"a":"\q"}`, 7},
		{`["a"]`, 0},
	} {
		r := NewReader([]byte(tc.in))
		if m := ReadStringMap(r); m != nil {
			t.Errorf("ReadStringMap(%s) = %v, want nil", tc.in, m)
		}
		var se *SyntaxError
		if !errors.As(r.Err(), &se) || se.Offset != tc.offset {
			t.Errorf("ReadStringMap(%s): error %v, want a *SyntaxError at %d", tc.in, r.Err(), tc.offset)
		}
	}
}

func TestReadTime(t *testing.T) {
	want := time.Date(2026, 12, 3, 16, 13, 25, 500000000, time.UTC)
	for _, in := range []string{`"2026-12-03T16:13:25.5Z"`, `"2026-12-03T16:13:25.5\u005a"`, `"2026-12-03T17:13:25.5+01:00"`} {
		r := NewReader([]byte(in))
		if got := ReadTime(r); r.Err() != nil || !got.Equal(want) {
			t.Errorf("ReadTime(%s) = %v, %v; want %v", in, got, r.Err(), want)
		}
	}
	for _, in := range []string{`"yesterday"`, `7`, `"2026-12-03`} {
		r := NewReader([]byte(in))
		if got := ReadTime(r); r.Err() == nil || !got.IsZero() {
			t.Errorf("ReadTime(%s) = %v, %v; want an error", in, got, r.Err())
		}
	}
}

// FuzzReadStringMap holds ReadStringMap to encoding/json decoding into a
// map[string]string: the same verdict and the same map, invalid UTF-8
// included.
func FuzzReadStringMap(f *testing.F) {
	for _, s := range []string{`{"a":"b","c":""}`, `null`, `{}`, `{"\u00e9":"\n\"","a":"1","a":"2"}`, `{"a":1}`, `{"a":"b"`, `[]`, "{\"\xff\":\"\x80\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		got := ReadStringMap(r)
		ok := r.Err() == nil && r.AtEnd()
		var want map[string]string
		wantOK := json.Valid(data) && json.Unmarshal(data, &want) == nil
		if ok != wantOK {
			t.Fatalf("%q: jsonx ok=%t (%v), encoding/json ok=%t", data, ok, r.Err(), wantOK)
		}
		if ok {
			if diff := cmp.Diff(want, got); diff != "" || (want == nil) != (got == nil) {
				t.Fatalf("%q: map (-encoding/json +jsonx):\n%s", data, diff)
			}
		}
	})
}
