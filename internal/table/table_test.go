package table

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decoded is a Table read back generically, for comparing its members.
type decoded struct {
	Kind              string            `json:"kind"`
	APIVersion        string            `json:"apiVersion"`
	Metadata          map[string]any    `json:"metadata"`
	ColumnDefinitions []column          `json:"columnDefinitions"`
	Rows              []json.RawMessage `json:"rows"`
}

func decodeTable(t *testing.T, b []byte) decoded {
	t.Helper()
	var d decoded
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return d
}

const listJSON = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":0},"items":[` +
	`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"40","creationTimestamp":"2026-12-04T11:00:00Z"},"spec":{"containers":[{"name":"c"}]},"status":{"phase":"Pending"}},` +
	`{"metadata":{"name":"b","namespace":"ns","resourceVersion":"41","creationTimestamp":"2026-12-04T11:59:58Z"},"spec":{"containers":[{"name":"c"}]},"status":{"phase":"Succeeded"}}]}`

func TestList(t *testing.T) {
	out, err := List([]byte("prefix:"), []byte(listJSON), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if string(out[:7]) != "prefix:" {
		t.Fatalf("List did not append to dst: %q", out)
	}
	d := decodeTable(t, out[7:])
	if d.Kind != "Table" || d.APIVersion != "meta.k8s.io/v1" {
		t.Errorf("kind %q apiVersion %q, want Table meta.k8s.io/v1", d.Kind, d.APIVersion)
	}
	if diff := cmp.Diff(map[string]any{"resourceVersion": "42", "continue": "tok", "remainingItemCount": 0.0}, d.Metadata); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	var names []string
	for _, c := range d.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := []string{
		`{"cells":["a","0/1","Pending","0","60m","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"40","creationTimestamp":"2026-12-04T11:00:00Z"}}}`,
		`{"cells":["b","0/1","Succeeded","0","2s","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"conditions":[{"type":"Completed","status":"True","reason":"Succeeded","message":"The pod has completed successfully."}],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b","namespace":"ns","resourceVersion":"41","creationTimestamp":"2026-12-04T11:59:58Z"}}}`,
	}
	if len(d.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(d.Rows), len(want))
	}
	for i, r := range d.Rows {
		if string(r) != want[i] {
			t.Errorf("row %d:\n%s\nwant\n%s", i, r, want[i])
		}
	}
}

func TestListEmpty(t *testing.T) {
	out, err := List(nil, []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]}`), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},"columnDefinitions":` + string(columnsJSON) + `,"rows":[]}`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestIncludeObject: each row carries its pod as includeObject asks, in the
// version of meta.k8s.io asked for; a list's items get the kind they leave
// out.
func TestIncludeObject(t *testing.T) {
	item := `{"metadata":{"name":"a","resourceVersion":"40"},"spec":{}}`
	list := `{"kind":"PodList","metadata":{},"items":[` + item + `]}`
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","resourceVersion":"40"}}`},
		{Options{Version: V1beta1}, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"a","resourceVersion":"40"}}`},
		{Options{Include: IncludeNone}, `null`},
		{Options{Include: IncludeObject}, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"40"},"spec":{}}`},
	} {
		c.o.Now = now
		out, err := List(nil, []byte(list), c.o)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			APIVersion string `json:"apiVersion"`
			Rows       []struct {
				Object json.RawMessage `json:"object"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(out, &d); err != nil || len(d.Rows) != 1 {
			t.Fatalf("%+v: %v rows of\n%s", c.o, err, out)
		}
		if got := string(d.Rows[0].Object); got != c.want {
			t.Errorf("%+v: object\n%s\nwant\n%s", c.o, got, c.want)
		}
		if c.o.Version == V1beta1 && d.APIVersion != "meta.k8s.io/v1beta1" {
			t.Errorf("v1beta1 asked, Table in %s", d.APIVersion)
		}
	}
}

// TestPod: a watch event's Table is one row at the pod's resourceVersion,
// the columns only when asked; a watch list's closing bookmark keeps its
// metadata even with includeObject=None.
func TestPod(t *testing.T) {
	pod := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"77"},"spec":{},"status":{}}`
	out, err := Pod(nil, []byte(pod), false, Options{Now: now, Include: IncludeObject})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"77"},"columnDefinitions":null,"rows":[{"cells":["a","0/0","","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":` + pod + `}]}`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	out, err = Pod(nil, []byte(pod), true, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if d := decodeTable(t, out); len(d.ColumnDefinitions) != len(podColumns) {
		t.Errorf("headers asked: %d column definitions, want %d", len(d.ColumnDefinitions), len(podColumns))
	}

	bookmark := `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"80","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}`
	out, err = Pod(nil, []byte(bookmark), false, Options{Now: now, Include: IncludeNone})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"80"},"columnDefinitions":null,"rows":[{"cells":["","0/0","","0","\u003cunknown\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"80","annotations":{"k8s.io/initial-events-end":"true"}}}}]}`
	if string(out) != want {
		t.Errorf("bookmark:\n%s\nwant\n%s", out, want)
	}
}

func TestNotPods(t *testing.T) {
	status := []byte(`{"kind":"Status","apiVersion":"v1","code":410}`)
	if out, err := Pod([]byte("x"), status, true, Options{}); !errors.Is(err, ErrNotPods) || string(out) != "x" {
		t.Errorf("Pod(Status) = %q, %v; want dst unchanged and ErrNotPods", out, err)
	}
	if _, err := List(nil, []byte(`{"kind":"Table","rows":[]}`), Options{}); !errors.Is(err, ErrNotPods) {
		t.Errorf("List(Table) error %v, want ErrNotPods", err)
	}
	for _, bad := range []string{`{"kind":"PodList","items":[{]}`, `{"kind":`, ``} {
		if out, err := List(nil, []byte(bad), Options{}); err == nil || errors.Is(err, ErrNotPods) || len(out) != 0 {
			t.Errorf("List(%q) = %q, %v; want nothing and a JSON error", bad, out, err)
		}
	}
}

func TestParseInclude(t *testing.T) {
	for v, want := range map[string]Include{"": IncludeMetadata, "Metadata": IncludeMetadata, "Object": IncludeObject, "None": IncludeNone} {
		if got, err := ParseInclude(v); err != nil || got != want {
			t.Errorf("ParseInclude(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	_, err := ParseInclude("none")
	const want = `includeObject: Invalid value: "none": must be 'Metadata', 'Object', 'None', or empty`
	if err == nil || err.Error() != want {
		t.Errorf("ParseInclude(none) error %v, want %s", err, want)
	}
}

// FuzzTable: any document gives a Table that is JSON, or an error, never a
// panic.
func FuzzTable(f *testing.F) {
	f.Add([]byte(listJSON))
	f.Add([]byte(`{"kind":"Pod","metadata":{"name":"a"},"status":{"containerStatuses":[{"state":{"terminated":{}}}]}}`))
	f.Add([]byte(`{"kind":"PodList","items":[null,5,{"spec":{"initContainers":[{"restartPolicy":"Always"}]}}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, inc := range []Include{IncludeMetadata, IncludeObject, IncludeNone} {
			o := Options{Now: now, Include: inc}
			if out, err := List(nil, doc, o); err == nil && !json.Valid(out) {
				t.Fatalf("List(%q) is not JSON: %q", doc, out)
			}
			if out, err := Pod(nil, doc, true, o); err == nil && !json.Valid(out) {
				t.Fatalf("Pod(%q) is not JSON: %q", doc, out)
			}
		}
	})
}
