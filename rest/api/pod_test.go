package api

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/jsonx"
)

func readRealPod(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatalf("read real pod: %v", err)
	}
	return data
}

func asJSONValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// encodesAs fails the test, saying what, unless p encodes to JSON equal to want.
func encodesAs(t *testing.T, what string, p *Pod, want []byte) {
	t.Helper()
	out, err := p.MarshalJSON()
	if err != nil {
		t.Fatalf("%s: MarshalJSON: %v", what, err)
	}
	if diff := cmp.Diff(asJSONValue(t, want), asJSONValue(t, out)); diff != "" {
		t.Fatalf("%s (-want +got):\n%s", what, diff)
	}
}

func TestRealPodRoundTripLosesNothing(t *testing.T) {
	in := readRealPod(t)
	p, err := DecodePod(in)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	encodesAs(t, "round trip changed the pod", p, in)
}

func TestRealPodTypedFields(t *testing.T) {
	p, err := DecodePod(readRealPod(t))
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	created, _ := time.Parse(time.RFC3339, "2026-12-02T10:37:31Z")
	got := []any{p.Kind, p.APIVersion, p.Metadata.Name, p.Metadata.Namespace,
		p.Metadata.ResourceVersion, p.Metadata.Generation, p.Metadata.CreationTimestamp.Equal(created),
		p.Metadata.Labels["app"], p.Spec.NodeName != "", len(p.Spec.Containers) > 0, p.Status.Phase != ""}
	want := []any{"Pod", "v1", "web-frontend-7d9f8b6c5d-x2kqz", "default", "268", int64(1), true,
		"web-frontend", true, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("typed fields (-want +got):\n%s", diff)
	}
	if p.Metadata.Unmodelled("managedFields") == nil {
		t.Fatalf("managedFields was not kept")
	}
}

func TestEditedPodKeepsUnmodelledMembers(t *testing.T) {
	in := readRealPod(t)
	p, err := DecodePod(in)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	c := p.DeepCopy()
	c.Metadata.Annotations["podwatch.test/seen"] = "yes"
	c.Spec.NodeName = "node-z"
	c.Spec.Tolerations = append(c.Spec.Tolerations, Toleration{Operator: "Exists", Effect: "NoExecute"})
	out, err := c.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	want := asJSONValue(t, in).(map[string]any)
	md := want["metadata"].(map[string]any)
	md["annotations"].(map[string]any)["podwatch.test/seen"] = "yes"
	spec := want["spec"].(map[string]any)
	spec["nodeName"] = "node-z"
	spec["tolerations"] = append(spec["tolerations"].([]any), map[string]any{"operator": "Exists", "effect": "NoExecute"})
	if diff := cmp.Diff(any(want), asJSONValue(t, out)); diff != "" {
		t.Fatalf("edited pod (-want +got):\n%s", diff)
	}
	if _, ok := p.Metadata.Annotations["podwatch.test/seen"]; ok || p.Spec.NodeName == "node-z" {
		t.Fatalf("DeepCopy shares state with the original")
	}
}

func TestDecodePodErrors(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"truncated", `{"metadata":{"name":"a"`},
		{"wrong type", `{"metadata":{"name":7}}`},
		{"bad time", `{"metadata":{"creationTimestamp":"yesterday"}}`},
		{"not an object", `[1,2]`},
		{"garbage", `<html>`},
		{"label not string", `{"metadata":{"labels":{"a":1}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, err := DecodePod([]byte(tc.in)); err == nil {
				t.Fatalf("DecodePod(%q) = %+v, want an error", tc.in, p)
			}
		})
	}
}

func FuzzDecodePod(f *testing.F) {
	f.Add(readRealPod(f))
	f.Add([]byte(`{"kind":"Pod","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"containers":[{"name":"c"}]}}`))
	f.Add([]byte(`{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}},{}],"uid":"u"}}`))
	f.Add([]byte(`{"metadata":{"managedFields":[{"a":1},2],"managedFields":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePod(data)
		if err != nil {
			return
		}
		out, err := p.MarshalJSON()
		if err != nil {
			t.Fatalf("decoded pod does not encode: %v", err)
		}
		if _, err := DecodePod(out); err != nil {
			t.Fatalf("encoded pod does not decode: %v\n%s", err, out)
		}
	})
}

// BenchmarkDecodeRealPod decodes the recorded pod, beside encoding/json.Valid
// over the same bytes in the same run: Valid does less (it keeps nothing) and
// moves with the machine's load as the decoder does, so the ratio of the two
// MB/s is the figure to compare between runs on a shared machine.
func BenchmarkDecodeRealPod(b *testing.B) {
	data := readRealPod(b)
	b.Run("DecodePod", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodePod(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(data) {
				b.Fatal("recorded pod is not valid JSON")
			}
		}
	})
}

// BenchmarkEncodeRealPod encodes a decoded real pod again: the writer's cost,
// unmodelled members included.
func BenchmarkEncodeRealPod(b *testing.B) {
	p, err := DecodePod(readRealPod(b))
	if err != nil {
		b.Fatal(err)
	}
	out, err := p.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteRealPod writes a decoded real pod into a reused writer: no
// allocation at all once the writer's buffer has grown.
func BenchmarkWriteRealPod(b *testing.B) {
	p, err := DecodePod(readRealPod(b))
	if err != nil {
		b.Fatal(err)
	}
	w := jsonx.NewWriter()
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		p.WriteJSON(w)
	}
	b.SetBytes(int64(len(w.Bytes())))
}
