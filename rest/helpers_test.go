package rest_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// testObj is the item type of these tests: any object, of which only kind and
// metadata are read.
type testObj struct {
	Kind string
	Meta meta.ObjectMeta
}

// testCodec decodes testObj from JSON, and from protobuf by transcoding.
var testCodec = jsonCodec(decodeTestObj)

// jsonCodec is the Codec of a JSON decoder alone.
func jsonCodec[T any](decode func([]byte) (T, error)) meta.Codec[T] {
	return meta.Codec[T]{JSON: decode}
}

// decodeTestObj decodes a testObj from its JSON (testCodec's JSON). It copies data, which the list
// decoder reuses, because kept metadata members alias what they were read from.
func decodeTestObj(data []byte) (*testObj, error) {
	var r jsonx.Reader
	r.Reset(bytes.Clone(data))
	o := &testObj{}
	r.Object(func(k []byte) {
		switch string(k) {
		case "kind":
			o.Kind = r.String()
		case "metadata":
			o.Meta.ReadJSON(&r)
		default:
			r.Skip()
		}
	})
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("data after the object")
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return o, nil
}

// keys lists items as "namespace/name@resourceVersion", for comparing.
func keys(items []*testObj) []string {
	if items == nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, o := range items {
		out = append(out, o.Meta.Namespace+"/"+o.Meta.Name+"@"+o.Meta.ResourceVersion)
	}
	return out
}

// realPod is testdata/pod.json, a 15 KB pod read from a real apiserver.
func realPod(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("../testdata/pod.json")
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

// podList is a PodList answer holding n copies of pod.
func podList(pod []byte, n int, rv string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q},"items":[`, rv)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(pod)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// smallPod is a minimal object with the given name and resourceVersion.
func smallPod(name, rv string) string {
	return fmt.Sprintf(`{"kind":"Pod","metadata":{"name":%q,"namespace":"ns","resourceVersion":%q},"spec":{"nodeName":"node-a"}}`, name, rv)
}

func list(items ...string) string {
	return `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + strings.Join(items, ",") + `]}`
}
