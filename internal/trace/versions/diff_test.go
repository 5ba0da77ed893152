package versions

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/trace"
)

func ch(op, path, from, value string) trace.Change {
	c := trace.Change{Op: op, Path: path}
	if from != "" {
		c.From = json.RawMessage(from)
	}
	if value != "" {
		c.Value = json.RawMessage(value)
	}
	return c
}

func TestDiffJSON(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
		mode       DiffMode
		want       []trace.Change
	}{
		{"equal", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, DiffFields, nil},
		{"replace a scalar", `{"a":1}`, `{"a":2}`, DiffFields, []trace.Change{ch("replace", "/a", "1", "2")}},
		{"add and remove members, in key order", `{"b":1,"c":{"x":true}}`, `{"a":"new","b":1}`, DiffFields,
			[]trace.Change{ch("add", "/a", "", `"new"`), ch("remove", "/c", `{"x":true}`, "")}},
		{"nested", `{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}`,
			`{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}`, DiffFields,
			[]trace.Change{ch("replace", "/spec/containers/0/image", `"nginx:1.27"`, `"nginx:1.28"`)}},
		{"array grows", `{"l":[1]}`, `{"l":[1,2,3]}`, DiffFields,
			[]trace.Change{ch("add", "/l/1", "", "2"), ch("add", "/l/2", "", "3")}},
		{"array shrinks, removed from the end first", `{"l":[1,2,3]}`, `{"l":[1]}`, DiffFields,
			[]trace.Change{ch("remove", "/l/2", "3", ""), ch("remove", "/l/1", "2", "")}},
		{"array compared index by index", `{"l":["a","b"]}`, `{"l":["x","a","b"]}`, DiffFields,
			[]trace.Change{ch("replace", "/l/0", `"a"`, `"x"`), ch("replace", "/l/1", `"b"`, `"a"`), ch("add", "/l/2", "", `"b"`)}},
		{"pointer escaping", `{"metadata":{"annotations":{"kubernetes.io/config.seen":"1","a~b":"x"}}}`,
			`{"metadata":{"annotations":{"kubernetes.io/config.seen":"2","a~b":"y"}}}`, DiffFields,
			[]trace.Change{ch("replace", "/metadata/annotations/a~0b", `"x"`, `"y"`),
				ch("replace", "/metadata/annotations/kubernetes.io~1config.seen", `"1"`, `"2"`)}},
		{"a number never equals a string", `{"n":1}`, `{"n":"1"}`, DiffFields, []trace.Change{ch("replace", "/n", "1", `"1"`)}},
		{"numbers equal by value", `{"n":1,"m":100}`, `{"n":1.0,"m":1e2}`, DiffFields, nil},
		{"strings equal by text, whatever the escaping", `{"s":"a \u0026 b"}`, `{"s":"a & b"}`, DiffFields, nil},
		{"values canonical: key order, no HTML escaping", `{}`, `{"o":{"z":"<&>","a":1}}`, DiffFields,
			[]trace.Change{ch("add", "/o", "", `{"a":1,"z":"<&>"}`)}},
		{"type change", `{"v":{"a":1}}`, `{"v":[1]}`, DiffFields, []trace.Change{ch("replace", "/v", `{"a":1}`, "[1]")}},
		{"null to value", `{"v":null}`, `{"v":false}`, DiffFields, []trace.Change{ch("replace", "/v", "null", "false")}},
		{"managedFields and resourceVersion left out", `{"metadata":{"resourceVersion":"5","managedFields":[{"manager":"a"}],"labels":{"x":"1"}}}`,
			`{"metadata":{"resourceVersion":"6","managedFields":[{"manager":"b"}],"labels":{"x":"2"}}}`, DiffFields,
			[]trace.Change{ch("replace", "/metadata/labels/x", `"1"`, `"2"`)}},
		{"managedFields left out when added", `{"metadata":{}}`, `{"metadata":{"managedFields":[]}}`, DiffFields, nil},
		{"managedFields and resourceVersion with all", `{"metadata":{"resourceVersion":"5","managedFields":[{"manager":"a"}]}}`,
			`{"metadata":{"resourceVersion":"6","managedFields":[{"manager":"b"},{"manager":"c"}]}}`, DiffAll,
			[]trace.Change{ch("replace", "/metadata/managedFields/0/manager", `"a"`, `"b"`), ch("add", "/metadata/managedFields/1", "", `{"manager":"c"}`),
				ch("replace", "/metadata/resourceVersion", `"5"`, `"6"`)}},
		{"only at the top: a member named so deeper is kept", `{"spec":{"metadata":{"resourceVersion":"1"}}}`,
			`{"spec":{"metadata":{"resourceVersion":"2"}}}`, DiffFields,
			[]trace.Change{ch("replace", "/spec/metadata/resourceVersion", `"1"`, `"2"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DiffJSON([]byte(tt.prev), []byte(tt.next), tt.mode)
			if err != nil {
				t.Fatalf("DiffJSON: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffJSONRefusesBadJSON(t *testing.T) {
	for _, bad := range []string{`{"a":`, `{"a":[1,}`, `nope`} {
		if _, err := DiffJSON([]byte(`{"a":{"b":1}}`), []byte(bad), DiffFields); err == nil {
			t.Errorf("DiffJSON with %q: no error", bad)
		}
	}
}
