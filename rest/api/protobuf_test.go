package api

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// readRealPodProtobuf returns the recorded pod's protobuf envelope (the
// same pod as testdata/pod.json, fetched from the same server).
func readRealPodProtobuf(t testing.TB) *protowire.Unknown {
	t.Helper()
	pb, err := os.ReadFile("../protowire/testdata/pod.pb")
	if err != nil {
		t.Fatalf("read recorded protobuf pod: %v", err)
	}
	u, err := protowire.ParseEnvelope(pb, 0)
	if err != nil {
		t.Fatalf("ParseEnvelope: %v", err)
	}
	return u
}

// readRecordedPodJSON returns the same pod as the server sent it in JSON.
func readRecordedPodJSON(t testing.TB) []byte {
	t.Helper()
	js, err := os.ReadFile("../protowire/testdata/pod.json")
	if err != nil {
		t.Fatalf("read recorded JSON pod: %v", err)
	}
	return js
}

func decodeProtobuf(t testing.TB, u *protowire.Unknown) *Pod {
	t.Helper()
	p, err := DecodePodProtobuf(meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}, u.Raw)
	if err != nil {
		t.Fatalf("DecodePodProtobuf: %v", err)
	}
	return p
}

// The recorded pod read straight from protobuf writes the JSON the server
// sent for it, and its typed fields are those of the pod read from JSON.
func TestProtobufPodIsTheJSONPod(t *testing.T) {
	js := readRecordedPodJSON(t)
	fromJSON, err := DecodePod(js)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	p := decodeProtobuf(t, readRealPodProtobuf(t))
	encodesAs(t, "the protobuf pod's JSON differs from the server's", p, js)
	typed := func(p *Pod) []any {
		return []any{p.TypeMeta, p.Metadata.Name, p.Metadata.Namespace, p.Metadata.UID, p.Metadata.ResourceVersion,
			p.Metadata.Generation, p.Metadata.CreationTimestamp, p.Metadata.DeletionTimestamp, p.Metadata.Labels,
			p.Metadata.Annotations, p.Spec.NodeName, len(p.Spec.Containers), p.Spec.Containers[0].Name,
			p.Spec.Containers[0].Image, len(p.Spec.Tolerations), *p.Spec.Tolerations[0].TolerationSeconds,
			p.Spec.Tolerations[1].Key, p.Status}
	}
	if diff := cmp.Diff(typed(fromJSON), typed(p), cmp.Comparer(func(a, b PodStatus) bool {
		return a.Phase == b.Phase && a.HostIP == b.HostIP && a.PodIP == b.PodIP
	})); diff != "" {
		t.Fatalf("typed fields (-JSON +protobuf):\n%s", diff)
	}
}

// What the kubelet path changes on a pod read from protobuf (annotations
// set by the pod config, on a deep copy) is written with the kept members.
func TestEditedProtobufPodKeepsKeptMembers(t *testing.T) {
	p := decodeProtobuf(t, readRealPodProtobuf(t))
	c := p.DeepCopy()
	c.Metadata.Annotations["podwatch.test/seen"] = "yes"
	c.Spec.NodeName = "node-z"
	want, err := DecodePod(readRecordedPodJSON(t))
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	want.Metadata.Annotations["podwatch.test/seen"] = "yes"
	want.Spec.NodeName = "node-z"
	wantJSON, _ := want.MarshalJSON()
	encodesAs(t, "edited protobuf pod", c, wantJSON)
	if _, ok := p.Metadata.Annotations["podwatch.test/seen"]; ok || p.Spec.NodeName == "node-z" {
		t.Fatalf("DeepCopy shares state with the original")
	}
}

// The pod keeps nothing of its input, and two pods read from equal bytes
// share their large kept runs, the managedFields entries' field sets too.
func TestProtobufPodSharesAndKeepsNothingOfItsInput(t *testing.T) {
	u := readRealPodProtobuf(t)
	in := bytes.Clone(u.Raw)
	a, err := DecodePodProtobuf(meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, in)
	if err != nil {
		t.Fatalf("DecodePodProtobuf: %v", err)
	}
	clear(in)
	encodesAs(t, "the pod changed when its input was overwritten", a, readRecordedPodJSON(t))
	b := decodeProtobuf(t, u)
	for _, k := range []struct {
		name string
		a, b jsonx.Extra
	}{
		{"managedFields[0]", a.Metadata.ManagedFields().Item(0), b.Metadata.ManagedFields().Item(0)},
		{"managedFields[1]", a.Metadata.ManagedFields().Item(1), b.Metadata.ManagedFields().Item(1)},
		{"spec", a.Spec.extra, b.Spec.extra},
		{"container", a.Spec.Containers[0].extra, b.Spec.Containers[0].extra},
		{"status", a.Status.extra, b.Status.extra},
	} {
		large := 0
		for i, f := range k.a {
			if f.Encoding() == nil || len(k.b) != len(k.a) {
				t.Fatalf("%s: run %d not kept in protobuf", k.name, i)
			}
			if len(f.Value) < jsonx.ShareMin {
				continue
			}
			large++
			if unsafe.SliceData(f.Value) != unsafe.SliceData(k.b[i].Value) {
				t.Fatalf("%s: run %d kept twice, want one shared", k.name, i)
			}
		}
		if large == 0 {
			t.Fatalf("%s: no large run kept", k.name)
		}
	}
	ma, mb := a.Metadata.ManagedFields(), b.Metadata.ManagedFields()
	if ma.Len() != 2 || mb.Len() != 2 {
		t.Fatalf("%d and %d managedFields entries, want 2 each", ma.Len(), mb.Len())
	}
}

// Strings replicas have in common (labels, annotations, namespace, node
// name, images) are one copy for every pod read, whatever the input; a
// pod's own (its name, uid, pod IP) are its own.
func TestProtobufPodsShareRecurringStrings(t *testing.T) {
	u := readRealPodProtobuf(t)
	a := decodeProtobuf(t, &protowire.Unknown{Raw: bytes.Clone(u.Raw)})
	b := decodeProtobuf(t, &protowire.Unknown{Raw: bytes.Clone(u.Raw)})
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	for k, v := range a.Metadata.Labels {
		bk := ""
		for kb := range b.Metadata.Labels {
			if kb == k {
				bk = kb
			}
		}
		if !same(k, bk) || !same(v, b.Metadata.Labels[k]) {
			t.Fatalf("label %s=%s read twice is two copies", k, v)
		}
	}
	for _, s := range [][2]string{
		{a.Metadata.Namespace, b.Metadata.Namespace},
		{a.Spec.NodeName, b.Spec.NodeName},
		{a.Spec.Containers[0].Image, b.Spec.Containers[0].Image},
		{a.Spec.Tolerations[0].Key, b.Spec.Tolerations[0].Key},
	} {
		if !same(s[0], s[1]) {
			t.Fatalf("%q read twice is two copies", s[0])
		}
	}
	if same(a.Metadata.Name, b.Metadata.Name) || same(a.Metadata.UID, b.Metadata.UID) {
		t.Fatalf("a pod's own name and uid are shared with another pod")
	}
}

// A malformed field anywhere in the pod, kept or typed, fails the decode
// with a *protowire.SyntaxError at its offset.
func TestProtobufPodErrors(t *testing.T) {
	u := readRealPodProtobuf(t)
	raw := u.Raw
	// Find the spec's volumes and the status's conditions: kept, not typed.
	at := func(b []byte, sub string) int {
		i := bytes.Index(b, []byte(sub))
		if i < 0 {
			t.Fatalf("the recorded pod has no %q", sub)
		}
		return i
	}
	for _, tc := range []struct {
		name  string
		edit  func([]byte) []byte
		where int
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-3] }, -1},
		{"bad wire type in a kept Time", func(b []byte) []byte {
			// A managedFields entry's time (4) holds seconds (1) as a varint;
			// make the key say fixed64.
			i := at(b, "Go-http-client")
			for j := i; j < len(b)-1; j++ {
				if b[j] == 4<<3|2 && b[j+2] == 1<<3 {
					b[j+2] = 1<<3 | 1
					return b
				}
			}
			t.Fatalf("no managedFields time found")
			return nil
		}, -2},
		{"typed string with a varint", func(b []byte) []byte {
			i := at(b, "\x0a\x08recorded") // metadata.name
			b[i] = 1<<3 | 0                // its key, now a varint
			return b
		}, -2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.edit(bytes.Clone(raw))
			_, err := DecodePodProtobuf(meta.TypeMeta{}, b)
			var se *protowire.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *protowire.SyntaxError", err)
			}
			if se.Offset < 0 || se.Offset > int64(len(b)) {
				t.Fatalf("offset %d outside the %d-byte pod", se.Offset, len(b))
			}
		})
	}
}

// A corrupted field the pod does not model, deep in a kept run, is still
// refused when the pod is decoded, with the error and offset transcoding
// the whole pod gives: kept runs are checked by a walk that writes nothing,
// and where it finds a fault the Transcoder names it.
func TestProtobufPodKeptFieldErrorsAtTheirOffset(t *testing.T) {
	raw := readRealPodProtobuf(t).Raw
	find := func(b []byte, sub string) int {
		i := bytes.Index(b, []byte(sub))
		if i < 0 {
			t.Fatalf("the recorded pod has no %q", sub)
		}
		return i
	}
	for _, tc := range []struct {
		name string
		// edit corrupts the pod and returns the offset of the byte at fault.
		edit func([]byte) int64
	}{
		{"a container's string given as a varint", func(b []byte) int64 {
			i := find(b, "\x6a\x14/dev/termination-log") // terminationMessagePath (13)
			b[i] = 13 << 3                               // now a varint: 0x14, then '/' reads as a key of wire type 7
			return int64(i + 2)
		}},
		{"a condition's time with seconds of the wrong wire type", func(b []byte) int64 {
			i := find(b, "\x0a\x19PodReadyToStartContainers") // a status condition's type
			for j := i; j < len(b)-2; j++ {
				if b[j] == 4<<3|2 && b[j+2] == 1<<3 { // lastTransitionTime {1 seconds}
					b[j+2] = 1<<3 | 1
					return int64(j + 3)
				}
			}
			t.Fatal("no condition time found")
			return 0
		}},
		{"a managedFields entry's malformed field set", func(b []byte) int64 {
			i := find(b, `{"f:metadata"`)
			b[i] = '['
			return int64(i + len(`{"f:metadata"`))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(raw)
			at := tc.edit(b)
			_, err := DecodePodProtobuf(meta.TypeMeta{}, b)
			podMsg, _ := protowire.Root("Pod")
			var tr protowire.Transcoder
			_, want := tr.Message(podMsg, b, 0)
			if err == nil || want == nil {
				t.Fatalf("decode: %v, transcode: %v; want both to fail", err, want)
			}
			got := errOffset(t, err)
			if w := errOffset(t, want); got != w {
				t.Fatalf("decode fails at byte %d (%v), the Transcoder at %d (%v)", got, err, w, want)
			}
			if got != at {
				t.Fatalf("error at byte %d (%v), want %d", got, err, at)
			}
		})
	}
}

// errOffset is the offset of a protobuf or embedded JSON syntax error.
func errOffset(t *testing.T, err error) int64 {
	t.Helper()
	var se *protowire.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var je *jsonx.SyntaxError
	if errors.As(err, &je) {
		return je.Offset
	}
	t.Fatalf("got %v, want a *protowire.SyntaxError or *jsonx.SyntaxError", err)
	return 0
}

func BenchmarkDecodeRealPodProtobuf(b *testing.B) {
	u := readRealPodProtobuf(b)
	tm := meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}
	b.SetBytes(int64(len(u.Raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePodProtobuf(tm, u.Raw); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodePodProtobuf feeds the pod's wire reader arbitrary messages: it
// must never panic; what it refuses is a typed error; and a pod it takes
// writes the JSON that transcoding the whole message and decoding that
// JSON gives.
func FuzzDecodePodProtobuf(f *testing.F) {
	f.Add(readRealPodProtobuf(f).Raw)
	meta1 := protoenc.AppendBytesField(nil, 1, []byte("a"))
	meta1 = protoenc.AppendBytesField(meta1, 11, protoenc.AppendBytesField(protoenc.AppendBytesField(nil, 1, []byte("k")), 2, []byte("v")))
	spec := protoenc.AppendBytesField(nil, 2, protoenc.AppendBytesField(nil, 1, []byte("c")))
	spec = protoenc.AppendBytesField(spec, 3, []byte("Always"))
	f.Add(append(protoenc.AppendBytesField(nil, 1, meta1), protoenc.AppendBytesField(nil, 2, spec)...))
	podMsg, _ := protowire.Root("Pod")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePodProtobuf(meta.TypeMeta{}, data)
		if err != nil {
			var se *protowire.SyntaxError
			var je *jsonx.SyntaxError // in a FieldsV1's embedded JSON
			var tl *protowire.TooLargeError
			if !errors.As(err, &se) && !errors.As(err, &je) && !errors.As(err, &tl) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		var tc protowire.Transcoder
		js, err := tc.Message(podMsg, data, 0)
		if err != nil {
			t.Fatalf("the wire reader took a pod the transcoder refuses: %v", err)
		}
		q, err := DecodePod(js)
		if err != nil {
			t.Fatalf("the wire reader took a pod whose JSON does not decode: %v\n%s", err, js)
		}
		got, _ := p.MarshalJSON()
		want, _ := q.MarshalJSON()
		if !bytes.Equal(got, want) {
			t.Fatalf("pod read from the wire writes\n%s\nthe transcoded pod writes\n%s", got, want)
		}
		for _, name := range []string{"ownerReferences", "finalizers", "managedFields", "selfLink"} {
			if got, want := p.Metadata.Unmodelled(name), q.Metadata.Unmodelled(name); !bytes.Equal(got, want) {
				t.Fatalf("Unmodelled(%q): got %s, the transcoded pod's %s", name, got, want)
			}
		}
	})
}

// Pods are decoded and written from many goroutines at once (a watch per
// source, the printer, the pod config): the shared runs, the memo of checked
// runs and the pooled readers and writers must hold up (run with -race).
func TestProtobufPodsConcurrently(t *testing.T) {
	u := readRealPodProtobuf(t)
	want := readRecordedPodJSON(t)
	tm := meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 20 {
				p, err := DecodePodProtobuf(tm, u.Raw)
				if err != nil {
					errs <- err
					return
				}
				if out, _ := p.MarshalJSON(); len(out) == 0 {
					errs <- errors.New("empty JSON")
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("decoders still running after a minute")
		}
	}
	encodesAs(t, "after concurrent use", decodeProtobuf(t, u), want)
}

// Unmodelled metadata members of a pod read from protobuf are returned as the
// JSON a pod read from JSON returns for them.
func TestProtobufPodUnmodelled(t *testing.T) {
	owner := protoenc.AppendBytesField(nil, 1, []byte("ReplicaSet"))
	owner = protoenc.AppendBytesField(owner, 3, []byte("web-7d9f"))
	owner = protoenc.AppendBytesField(owner, 4, []byte("u-1"))
	owner = protoenc.AppendBytesField(owner, 5, []byte("apps/v1"))
	owner = protoenc.AppendVarintField(owner, 6, 1)
	md := protoenc.AppendBytesField(nil, 1, []byte("web"))
	md = protoenc.AppendBytesField(md, 13, owner)
	md = protoenc.AppendBytesField(md, 14, []byte("example.com/a"))
	md = protoenc.AppendBytesField(md, 14, []byte("example.com/b"))
	pod := protoenc.AppendBytesField(nil, 1, md)
	p, err := DecodePodProtobuf(meta.TypeMeta{}, pod)
	if err != nil {
		t.Fatalf("DecodePodProtobuf: %v", err)
	}
	podMsg, _ := protowire.Root("Pod")
	var tc protowire.Transcoder
	js, err := tc.Message(podMsg, pod, 0)
	if err != nil {
		t.Fatalf("transcode: %v", err)
	}
	q, err := DecodePod(js)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	for _, name := range []string{"ownerReferences", "finalizers", "selfLink"} {
		want, got := q.Metadata.Unmodelled(name), p.Metadata.Unmodelled(name)
		if !bytes.Equal(want, got) {
			t.Errorf("Unmodelled(%q): got %s, want %s", name, got, want)
		}
	}
	if p.Metadata.Unmodelled("ownerReferences") == nil {
		t.Fatalf("ownerReferences not kept")
	}
}
