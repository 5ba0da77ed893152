package rest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

func pbPod(ns, name, rv string) []byte {
	var meta []byte
	meta = protoenc.AppendBytesField(meta, 1, []byte(name))
	meta = protoenc.AppendBytesField(meta, 3, []byte(ns))
	meta = protoenc.AppendBytesField(meta, 6, []byte(rv))
	return protoenc.AppendBytesField(nil, 1, meta)
}

// pbList is a PodList envelope of items at resourceVersion rv.
func pbList(rv string, items ...[]byte) []byte {
	list := protoenc.AppendBytesField(nil, 1, protoenc.AppendBytesField(nil, 2, []byte(rv)))
	for _, it := range items {
		list = protoenc.AppendBytesField(list, 2, it)
	}
	return protoenc.AppendEnvelope(nil, "v1", "PodList", list)
}

func TestDecodeListProtobuf(t *testing.T) {
	body := pbList("42", pbPod("a", "x", "40"), pbPod("b", "y", "41"))
	l, err := rest.DecodeList(bytes.NewReader(body), wire.Protobuf, jsonCodec(decodeTestObj), rest.ListLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != "PodList" || l.APIVersion != "v1" || l.Metadata.ResourceVersion != "42" {
		t.Errorf("got %s %s at rv %q, want v1 PodList at 42", l.APIVersion, l.Kind, l.Metadata.ResourceVersion)
	}
	if d := cmp.Diff([]string{"a/x@40", "b/y@41"}, keys(l.Items)); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	empty, err := rest.DecodeList(bytes.NewReader(pbList("7")), wire.Protobuf, jsonCodec(decodeTestObj), rest.ListLimits{})
	if err != nil || empty.Items == nil || len(empty.Items) != 0 {
		t.Errorf("empty list: got %v, %v; want no items, as the JSON [] decodes", empty, err)
	}
}

func TestDecodeListProtobufErrors(t *testing.T) {
	body := pbList("42", pbPod("a", "x", "40"), pbPod("b", "y", "41"))
	tests := []struct {
		name  string
		body  []byte
		lim   rest.ListLimits
		check func(error) bool
	}{
		{"truncated", body[:len(body)-5], rest.ListLimits{}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"JSON", []byte(`{"items":[]}`), rest.ListLimits{}, func(err error) bool {
			var me *protowire.MagicError
			return errors.As(err, &me) && me.Offset == 0
		}},
		{"too many items", body, rest.ListLimits{MaxItems: 1}, func(err error) bool {
			var te *rest.TooManyItemsError
			return errors.As(err, &te)
		}},
		{"item too large", pbList("42", pbPod("a", strings.Repeat("x", 100), "40")), rest.ListLimits{MaxItemBytes: 50}, func(err error) bool {
			var ie *rest.ItemTooLargeError
			return errors.As(err, &ie) && ie.Index == 0
		}},
		{"not a list", protoenc.AppendEnvelope(nil, "v1", "Secret", nil), rest.ListLimits{}, func(err error) bool {
			var ke *protowire.KindError
			return errors.As(err, &ke)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rest.DecodeList(bytes.NewReader(tt.body), wire.Protobuf, jsonCodec(decodeTestObj), tt.lim)
			if !tt.check(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
		})
	}
}

// TestProtobufAcceptAndContentType checks what a protobuf client asks for,
// that it refuses an answer in another format, and that it reads a protobuf
// error answer's Status.
func TestProtobufAcceptAndContentType(t *testing.T) {
	c, answer := refusesOtherFormats(t, wire.ContentTypeProtobuf)
	ctx := context.Background()
	var err error

	answer(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeProtobuf+";stream=watch")
	})
	if _, err := c.Get().Resource("pods").Watch(true).Do(ctx); err != nil {
		t.Fatalf("protobuf watch answer: %v", err)
	}

	var status []byte
	status = protoenc.AppendBytesField(status, 2, []byte("Failure"))
	status = protoenc.AppendBytesField(status, 3, []byte(`pods "x" is forbidden`))
	status = protoenc.AppendBytesField(status, 4, []byte("Forbidden"))
	status = protoenc.AppendVarintField(status, 6, 403)
	answer(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeProtobuf)
		w.WriteHeader(http.StatusForbidden)
		w.Write(protoenc.AppendEnvelope(nil, "v1", "Status", status))
	})
	_, err = c.Get().Resource("pods").Do(ctx)
	se, ok := rest.AsStatusError(err)
	if !ok || !rest.IsForbidden(err) || se.Status.Message != `pods "x" is forbidden` || se.Body != "" {
		t.Fatalf("protobuf 403: got %v, want the Status it holds", err)
	}

	if _, err := rest.NewClient(rest.Config{Host: "http://127.0.0.1:1", ContentType: "application/yaml"}); err == nil {
		t.Errorf("NewClient took content type application/yaml")
	}
}

func FuzzDecodeListProtobuf(f *testing.F) {
	f.Add(pbList("42", pbPod("a", "x", "40"), pbPod("b", "y", "41")))
	f.Add(pbList("1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := rest.DecodeList(bytes.NewReader(b), wire.Protobuf, jsonCodec(decodeTestObj), rest.ListLimits{MaxItemBytes: 1 << 16, MaxItems: 100})
		if err == nil && len(l.Items) > 100 {
			t.Fatalf("%d items past the limit", len(l.Items))
		}
	})
}

// TestDecodeListProtobufTranscodingBounded: an item within the limit whose
// JSON would not be is refused as too large.
func TestDecodeListProtobufTranscodingBounded(t *testing.T) {
	var spec []byte
	for range 5000 {
		spec = protoenc.AppendBytesField(spec, 2, nil) // an empty container
	}
	item := protoenc.AppendBytesField(nil, 2, spec)
	_, err := rest.DecodeList(bytes.NewReader(pbList("1", item)), wire.Protobuf, jsonCodec(decodeTestObj), rest.ListLimits{MaxItemBytes: int64(2 * len(item))})
	var ie *rest.ItemTooLargeError
	if !errors.As(err, &ie) || ie.Index != 0 {
		t.Fatalf("got %v, want an *ItemTooLargeError for item 0", err)
	}
}

// recordedPodMessage returns the recorded real pod's protobuf message (the
// envelope's raw).
func recordedPodMessage(t *testing.T) []byte {
	t.Helper()
	pb, err := os.ReadFile("protowire/testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	u, err := protowire.ParseEnvelope(pb, 0)
	if err != nil {
		t.Fatal(err)
	}
	return u.Raw
}

// A list's pods read straight from protobuf are those read through JSON, and
// a malformed field of one, even a kept one, fails at its stream offset.
func TestDecodeListProtobufDirect(t *testing.T) {
	pod := recordedPodMessage(t)
	body := pbList("42", pod, pod)
	direct, err := rest.DecodeList(bytes.NewReader(body), wire.Protobuf, api.Codec, rest.ListLimits{})
	if err != nil {
		t.Fatalf("direct: %v", err)
	}
	viaJSON, err := rest.DecodeList(bytes.NewReader(body), wire.Protobuf, jsonCodec(api.DecodePod), rest.ListLimits{})
	if err != nil {
		t.Fatalf("through JSON: %v", err)
	}
	if len(direct.Items) != 2 || direct.Metadata.ResourceVersion != "42" {
		t.Fatalf("direct: %d items at rv %q, want 2 at 42", len(direct.Items), direct.Metadata.ResourceVersion)
	}
	for i := range direct.Items {
		a, _ := viaJSON.Items[i].MarshalJSON()
		b, _ := direct.Items[i].MarshalJSON()
		if !bytes.Equal(a, b) {
			t.Fatalf("item %d: direct\n%s\nthrough JSON\n%s", i, b, a)
		}
	}
	// The second pod's dnsPolicy (field 6, a kept string) gets wire type 7.
	key := bytes.LastIndex(body, []byte("\x32\x0cClusterFirst"))
	if key < 0 {
		t.Fatal("the recorded pod has no dnsPolicy ClusterFirst")
	}
	bad := bytes.Clone(body)
	bad[key] = 6<<3 | 7
	_, err = rest.DecodeList(bytes.NewReader(bad), wire.Protobuf, api.Codec, rest.ListLimits{})
	var se *protowire.SyntaxError
	if !errors.As(err, &se) || se.Offset != int64(key) {
		t.Fatalf("got %v, want a *protowire.SyntaxError at byte %d", err, key)
	}
}

// refusesOtherFormats returns a client asking for contentType from a test
// server, and the setter of that server's answer. It first checks what both
// binary formats share: the client's Accept names contentType alone, and a
// JSON answer is a *ContentTypeError naming what was asked and what came.
func refusesOtherFormats(t *testing.T, contentType string) (*rest.Client, func(func(http.ResponseWriter))) {
	t.Helper()
	var mu sync.Mutex
	var accept string
	answer := func(http.ResponseWriter) {}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept = r.Header.Get("Accept")
		a := answer
		mu.Unlock()
		a(w)
	}))
	t.Cleanup(srv.Close)
	c, err := rest.NewClient(rest.Config{Host: srv.URL, ContentType: contentType})
	if err != nil {
		t.Fatal(err)
	}
	set := func(a func(http.ResponseWriter)) {
		mu.Lock()
		answer = a
		mu.Unlock()
	}
	set(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"PodList","items":[]}`))
	})
	_, err = c.Get().Resource("pods").Do(context.Background())
	var ce *rest.ContentTypeError
	if !errors.As(err, &ce) || ce.Asked != contentType || ce.Got != "application/json" {
		t.Fatalf("JSON answer: got %v, want a *ContentTypeError naming both types", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if accept != contentType {
		t.Errorf("Accept: got %q, want %q", accept, contentType)
	}
	return c, set
}
