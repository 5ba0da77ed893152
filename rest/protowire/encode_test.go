package protowire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// TestEncodeRecordedPod turns the pod the real apiserver sent in protobuf
// into its JSON and back. The apiserver's encoding is deterministic (field
// order, sorted map keys, every non-pointer field written, no unknown
// fields), so the bytes must come back exactly as it sent them.
func TestEncodeRecordedPod(t *testing.T) {
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	var enc encoder
	got, err := enc.Envelope(nil, transcode(t, pb))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, pb) {
		ga, _ := ParseEnvelope(got, 0)
		wa, _ := ParseEnvelope(pb, 0)
		t.Fatalf("encoded pod (%d bytes) differs from the apiserver's (%d): %s", len(got), len(pb), diffMessage("pod", 0, ga.Raw, wa.Raw))
	}
	// The server's own JSON, not only the transcoder's, encodes the same.
	js, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, err = enc.Envelope(got[:0], bytes.TrimSpace(js)); err != nil || !bytes.Equal(got, pb) {
		t.Fatalf("the server's JSON encodes to %d bytes (err %v), want its %d protobuf bytes", len(got), err, len(pb))
	}
}

// diffMessage locates the first difference between two encodings of
// message mi, for a failure that says where rather than dumping 10 KB.
func diffMessage(path string, mi int, got, want []byte) string {
	g, _ := scanFields(nil, got, 0)
	w, _ := scanFields(nil, want, 0)
	for i := range max(len(g), len(w)) {
		if i >= len(g) || i >= len(w) {
			return fmt.Sprintf("%s: %d fields, want %d", path, len(g), len(w))
		}
		x, y := g[i], w[i]
		if x.num != y.num || x.wire != y.wire || x.val != y.val {
			return fmt.Sprintf("%s: field #%d is %d (wire %d, %d), want %d (wire %d, %d)", path, i, x.num, x.wire, x.val, y.num, y.wire, y.val)
		}
		if bytes.Equal(x.data, y.data) {
			continue
		}
		for _, f := range messages[mi].fields {
			if f.num == x.num && f.kind == kindMessage && !f.isMap {
				return diffMessage(path+"."+f.json, f.msg, x.data, y.data)
			}
		}
		return fmt.Sprintf("%s field %d: %q, want %q", path, x.num, x.data, y.data)
	}
	return "same fields"
}

func transcode(t testing.TB, envelope []byte) []byte {
	t.Helper()
	u, err := ParseEnvelope(envelope, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tc Transcoder
	js, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(js)
}

// TestEncodeZeroFields: what JSON leaves out the apiserver still writes, each
// non-pointer field as its zero value, and a pointer only when set.
func TestEncodeZeroFields(t *testing.T) {
	var enc encoder
	got, err := enc.Envelope(nil, []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gone","reason":"Expired","code":410}`))
	if err != nil {
		t.Fatal(err)
	}
	status := cat(
		bytesField(1, cat(bytesField(1, nil), bytesField(2, nil), bytesField(3, nil))), // ListMeta: its three strings
		bytesField(2, []byte("Failure")), bytesField(3, []byte("gone")), bytesField(4, []byte("Expired")),
		varintField(6, 410), // details, a pointer, absent
	)
	if want := envelope("v1", "Status", status); !bytes.Equal(got, want) {
		t.Errorf("Status:\ngot  %q\nwant %q", got, want)
	}

	// A bookmark: creationTimestamp an empty message, spec and status with
	// their zero scalars, the annotation a sorted map entry.
	got, err = enc.Envelope(got[:0], []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseEnvelope(got, 0)
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := scanFields(nil, mustField(t, u.Raw, 1).data, 0)
	var nums []int32
	for _, f := range meta {
		nums = append(nums, f.num)
	}
	if want := []int32{1, 2, 3, 4, 5, 6, 7, 8, 12}; !cmp.Equal(nums, want) {
		t.Errorf("bookmark metadata fields %v, want %v", nums, want)
	}
	if ts := mustField(t, mustField(t, u.Raw, 1).data, 8); len(ts.data) != 0 {
		t.Errorf("zero creationTimestamp is %q, want an empty message", ts.data)
	}
}

func mustField(t *testing.T, msg []byte, num int32) occ {
	t.Helper()
	fs, err := scanFields(nil, msg, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.num == num {
			return f
		}
	}
	t.Fatalf("no field %d in %q", num, msg)
	return occ{}
}

// TestEncodeForms checks each special form against what its Go type's
// Marshal writes, by decoding it back.
func TestEncodeForms(t *testing.T) {
	pod := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":"2026-12-03T10:33:59Z",` +
		`"managedFields":[{"manager":"m","time":"2026-12-03T10:33:59Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]},` +
		`"spec":{"containers":[{"name":"c","resources":{"limits":{"memory":"128Mi","cpu":"1"}},` +
		`"livenessProbe":{"httpGet":{"path":"/","port":"http"},"periodSeconds":5},"readinessProbe":{"tcpSocket":{"port":8080}}}],` +
		`"volumes":[{"name":"v","configMap":{"name":"cm","defaultMode":420}}],"nodeName":"node-a","priority":-5},"status":{}}`
	var enc encoder
	pb, err := enc.Envelope(nil, []byte(pod))
	if err != nil {
		t.Fatal(err)
	}
	back := transcode(t, pb)
	var want, got any
	if err := json.Unmarshal([]byte(pod), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatal(err)
	}
	// What the transcoder adds: the members the apiserver writes for zero
	// values that JSON never omits.
	if diff := cmp.Diff(want, got, cmpIgnoreAdded()); diff != "" {
		t.Errorf("pod -> protobuf -> JSON (-sent +back):\n%s", diff)
	}
}

// cmpIgnoreAdded compares only the members the first value holds.
func cmpIgnoreAdded() cmp.Option {
	return cmp.FilterPath(func(p cmp.Path) bool {
		mi, ok := p.Last().(cmp.MapIndex)
		if !ok {
			return false
		}
		vx, _ := mi.Values()
		return !vx.IsValid()
	}, cmp.Ignore())
}

func TestEncodeSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json, path string
	}{
		{"unknown member", `{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"a"},{"name":"b","bogus":1}]}}`, "spec.containers[1].bogus"},
		{"string for an int", `{"kind":"Pod","apiVersion":"v1","metadata":{"generation":"1"}}`, "metadata.generation"},
		{"int32 overflow", `{"kind":"Pod","apiVersion":"v1","spec":{"priority":4294967296}}`, "spec.priority"},
		{"malformed time", `{"kind":"Pod","apiVersion":"v1","metadata":{"creationTimestamp":"yesterday"}}`, "metadata.creationTimestamp"},
		{"array for a map", `{"kind":"Pod","apiVersion":"v1","metadata":{"labels":["a"]}}`, "metadata.labels"},
		{"map value", `{"kind":"Pod","apiVersion":"v1","metadata":{"labels":{"a":1}}}`, `metadata.labels["a"]`},
		{"inline member", `{"kind":"Pod","apiVersion":"v1","spec":{"volumes":[{"name":"v","emptyDir":{"medium":7}}]}}`, "spec.volumes[0].emptyDir.medium"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var enc encoder
			_, err := enc.Envelope(nil, []byte(tc.json))
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SchemaError", err)
			}
			if se.Path != tc.path {
				t.Errorf("path %q, want %q (%v)", se.Path, tc.path, err)
			}
		})
	}
	var enc encoder
	var ke *KindError
	if _, err := enc.Envelope(nil, []byte(`{"kind":"Secret","apiVersion":"v1"}`)); !errors.As(err, &ke) {
		t.Errorf("a Secret: got %v, want a *KindError", err)
	}
	var syn *jsonx.SyntaxError
	if _, err := enc.Envelope(nil, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{`)); !errors.As(err, &syn) {
		t.Errorf("truncated JSON: got %v, want a *jsonx.SyntaxError", err)
	}
}

// TestEncodeWatchFrame reads a frame back with the decoder: length prefix,
// WatchEvent, RawExtension, envelope.
func TestEncodeWatchFrame(t *testing.T) {
	var enc encoder
	ev := []byte(`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"},"spec":{"containers":null},"status":{}}}`)
	b, err := enc.EventFrame([]byte("prefix"), ev)
	if err != nil {
		t.Fatal(err)
	}
	frame := b[len("prefix"):]
	if n := binary.BigEndian.Uint32(frame); int(n) != len(frame)-4 {
		t.Fatalf("frame length %d, want %d", n, len(frame)-4)
	}
	we, err := ParseWatchEvent(frame[4:], 4)
	if err != nil {
		t.Fatal(err)
	}
	if we.Type != "BOOKMARK" {
		t.Errorf("type %q", we.Type)
	}
	got := transcode(t, we.Object)
	want := `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"},"spec":{"containers":null},"status":{}}`
	if string(got) != want {
		t.Errorf("object\ngot  %s\nwant %s", got, want)
	}
}

// FuzzEncodeRoundTrip: whatever the transcoder makes of an envelope, the
// encoder takes back to protobuf that transcodes to the same JSON.
func FuzzEncodeRoundTrip(f *testing.F) {
	if pb, err := os.ReadFile("testdata/pod.pb"); err == nil {
		f.Add(pb)
	}
	f.Add(envelope("v1", "Status", cat(bytesField(3, []byte("gone")), varintField(6, 410))))
	f.Add(envelope("v1", "PodList", bytesField(2, bytesField(1, bytesField(1, []byte("a"))))))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseEnvelope(b, 0)
		if err != nil {
			return
		}
		var tc Transcoder
		js, err := tc.Object(u)
		if err != nil {
			return
		}
		js = bytes.Clone(js)
		var enc encoder
		pb, err := enc.Envelope(nil, js)
		if err != nil {
			t.Fatalf("encode %s: %v", js, err)
		}
		u2, err := ParseEnvelope(pb, 0)
		if err != nil {
			t.Fatalf("encoded envelope unreadable: %v", err)
		}
		again, err := tc.Object(u2)
		if err != nil {
			t.Fatalf("encoded object unreadable: %v", err)
		}
		// Equal as JSON: invalid UTF-8 in the protobuf is \ufffd in the
		// first JSON, and a valid U+FFFD, written as is, in the second.
		var first, second any
		if err := json.Unmarshal(js, &first); err != nil {
			t.Fatalf("first JSON: %v", err)
		}
		if err := json.Unmarshal(again, &second); err != nil || !cmp.Equal(first, second) {
			t.Fatalf("round trip changed the JSON (%v):\nfirst  %s\nsecond %s", err, js, again)
		}
		// And once encoded, the encoding is a fixed point.
		if pb2, err := enc.Envelope(nil, bytes.Clone(again)); err != nil || !bytes.Equal(pb2, pb) {
			t.Fatalf("second encoding differs (err %v)", err)
		}
	})
}

// FuzzEncodeJSON: any JSON either encodes to an envelope that reads back
// as the same object, or gives a typed error; never a panic.
func FuzzEncodeJSON(f *testing.F) {
	f.Add([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"b":"1","a":"2"}},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}]}]}}`))
	f.Add([]byte(`{"kind":"Status","apiVersion":"v1","code":410,"details":{"causes":[{"field":"x"}]}}`))
	f.Add([]byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1"}}`))
	f.Add([]byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","verbs":["get"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var enc encoder
		if _, err := enc.EventFrame(nil, b); err != nil {
			checkTyped(t, err)
		}
		pb, err := enc.Envelope(nil, b)
		if err != nil {
			checkTyped(t, err)
			return
		}
		u, err := ParseEnvelope(pb, 0)
		if err != nil {
			t.Fatalf("encoded envelope unreadable: %v", err)
		}
		var tc Transcoder
		js, err := tc.Object(u)
		if err != nil {
			t.Fatalf("encoded object unreadable: %v", err)
		}
		if !json.Valid(js) {
			t.Fatalf("reads back as invalid JSON %s", js)
		}
	})
}

func checkTyped(t *testing.T, err error) {
	t.Helper()
	var se *SchemaError
	var ke *KindError
	var syn *jsonx.SyntaxError
	var te *TooLargeError
	if !errors.As(err, &se) && !errors.As(err, &ke) && !errors.As(err, &syn) && !errors.As(err, &te) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}
