package docs

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

// detailField names, for each kind, the Step field holding its details.
var detailField = map[trace.Kind]string{
	trace.KindStart: "Start", trace.KindDecision: "Decision", trace.KindRequest: "Request",
	trace.KindResponse: "Response", trace.KindConn: "Conn", trace.KindFrame: "Frame",
	trace.KindRead: "Read", trace.KindEvent: "Event", trace.KindBodyEnd: "BodyEnd",
	trace.KindPush: "Push", trace.KindStop: "Stop", trace.KindStall: "Stall", trace.KindMissed: "Missed",
}

// rawJSON is the type of members that hold JSON as it came (a change's
// values): fill gives them a JSON string.
var rawJSON = reflect.TypeFor[json.RawMessage]()

// fill sets every field of v, recursively, to a value that is not zero, so
// that marshalling it writes every member the schema has.
func fill(v reflect.Value) {
	if v.Type() == rawJSON {
		v.SetBytes([]byte(`"x"`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1e6)
	case reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		m.SetMapIndex(reflect.ValueOf("*"), e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// paths lists the members of a decoded JSON value as dotted paths, "[]"
// standing for any element of an array.
func paths(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			paths(p, e, out)
		}
	case []any:
		for _, e := range v {
			paths(prefix+"[]", e, out)
		}
	default:
		out[prefix] = true
	}
}

// schemaPaths is every member path a JSON trace line can have.
func schemaPaths(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for kind := range detailField {
		stepPaths(t, trace.Step{Kind: kind, Req: 1, At: 1e6, Client: "x"}, out)
	}
	return out
}

// stepPaths adds to out the member paths of s written as a JSON trace line,
// once every field of its kind's details is filled.
func stepPaths(t *testing.T, s trace.Step, out map[string]bool) {
	t.Helper()
	fill(reflect.ValueOf(&s).Elem().FieldByName(detailField[s.Kind]))
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	paths("", v, out)
}

var docPathRE = regexp.MustCompile("(?m)^\\| `([a-z_.*\\[\\]A-Z-]+)` \\|")

// documentedPaths is every member path the "JSON schema" section of
// docs/TRACE.md (doc) documents: a table row beginning with the path.
func documentedPaths(t *testing.T, doc string) map[string]bool {
	t.Helper()
	_, schema, ok := strings.Cut(doc, "\n## JSON schema\n")
	if !ok {
		t.Fatalf("docs/TRACE.md has no \"## JSON schema\" section")
	}
	schema, _, _ = strings.Cut(schema, "\n## ")
	documented := map[string]bool{}
	for _, m := range docPathRE.FindAllStringSubmatch(schema, -1) {
		documented[m[1]] = true
	}
	return documented
}

// TestTraceSchemaDocumented fails when the JSON trace writes a member that
// the "JSON schema" section of docs/TRACE.md does not document (a table row
// beginning with the member's path), or the section lists one it no longer
// writes.
func TestTraceSchemaDocumented(t *testing.T) {
	doc := readDoc(t, "TRACE.md")
	documented := documentedPaths(t, doc)
	written := schemaPaths(t)
	var missing, stale []string
	for p := range written {
		if !documented[p] {
			missing = append(missing, p)
		}
	}
	for p := range documented {
		if !written[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("docs/TRACE.md does not document:\n  %s", strings.Join(missing, "\n  "))
	}
	if len(stale) > 0 {
		t.Errorf("docs/TRACE.md documents members the trace does not write:\n  %s", strings.Join(stale, "\n  "))
	}
	for kind := range detailField {
		if !strings.Contains(doc, "`"+string(kind)+"`") {
			t.Errorf("docs/TRACE.md does not name the kind %q", kind)
		}
	}
	if t.Failed() {
		all := slices.Sorted(func(yield func(string) bool) {
			for p := range written {
				if !yield(p) {
					return
				}
			}
		})
		t.Logf("every member written:\n%s", strings.Join(all, "\n"))
	}
}
