package versions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

// FuzzDiffJSON: for any two JSON documents, DiffJSON's changes, applied in
// order as a JSON patch to the first, give the second (numbers compared by
// value); and DiffJSON never fails on valid JSON.
func FuzzDiffJSON(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"a":1,"b":[1,2,3],"c":{"x/y":"~"}}`, `{"a":"1","b":[3],"c":{"x/y":"~~","z":null}}`},
		{`[1,[2,3],{"a":[]}]`, `[[2],{"a":[1,{}]},4,5]`},
		{`{"metadata":{"resourceVersion":"1","managedFields":[{}]}}`, `{"metadata":{"resourceVersion":"2"}}`},
		{`"a"`, `{"a":"b"}`},
		{`{"":1,"~0":2}`, `{"":{},"~1":2}`},
		{`{"\ud800x":1,"\u00e9":[]}`, `{"\u00e9":[0]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, prev, next string) {
		var a, b any
		if json.Unmarshal([]byte(prev), &a) != nil || json.Unmarshal([]byte(next), &b) != nil {
			return
		}
		changes, err := DiffJSON([]byte(prev), []byte(next), DiffAll)
		if err != nil {
			t.Fatalf("DiffJSON(%s, %s): %v", prev, next, err)
		}
		got, err := applyPatch(a, changes)
		if err != nil {
			t.Fatalf("applying %v to %s: %v", changes, prev, err)
		}
		if !reflect.DeepEqual(got, b) {
			t.Fatalf("%s patched with %v gives %v, want %s", prev, changes, got, next)
		}
	})
}

// applyPatch applies changes to doc, as RFC 6902 would.
func applyPatch(doc any, changes []trace.Change) (any, error) {
	for _, c := range changes {
		var v any
		if c.Op != "remove" {
			if err := json.Unmarshal(c.Value, &v); err != nil {
				return nil, err
			}
		}
		var err error
		if doc, err = applyAt(doc, pointerSegments(c.Path), c.Op, v); err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.Op, c.Path, err)
		}
	}
	return doc, nil
}

func pointerSegments(p string) []string {
	if p == "" {
		return nil
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

func applyAt(doc any, segs []string, op string, v any) (any, error) {
	if len(segs) == 0 {
		return v, nil // replace the whole document
	}
	k, rest := segs[0], segs[1:]
	switch d := doc.(type) {
	case map[string]any:
		if len(rest) > 0 {
			child, err := applyAt(d[k], rest, op, v)
			d[k] = child
			return d, err
		}
		if op == "remove" {
			delete(d, k)
		} else {
			d[k] = v
		}
		return d, nil
	case []any:
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i > len(d) {
			return nil, fmt.Errorf("index %q of %d", k, len(d))
		}
		if len(rest) > 0 {
			child, err := applyAt(d[i], rest, op, v)
			d[i] = child
			return d, err
		}
		switch op {
		case "add":
			return append(d[:i], append([]any{v}, d[i:]...)...), nil
		case "remove":
			return append(d[:i], d[i+1:]...), nil
		}
		d[i] = v
		return d, nil
	}
	return nil, fmt.Errorf("%q inside a %T", k, doc)
}
