package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

func int64p(v int64) *int64 { return &v }

func TestDecodeList(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		wantType meta.TypeMeta
		wantMeta meta.ListMeta
		wantKeys []string
	}{
		{
			name:     "typical",
			in:       `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1234","continue":"eyJ2IjoxfQ","remainingItemCount":5},"items":[` + smallPod("a", "7") + "," + smallPod("b", "9") + `]}`,
			wantType: meta.TypeMeta{Kind: "PodList", APIVersion: "v1"},
			wantMeta: meta.ListMeta{ResourceVersion: "1234", Continue: "eyJ2IjoxfQ", RemainingItemCount: int64p(5)},
			wantKeys: []string{"ns/a@7", "ns/b@9"},
		},
		{
			name:     "items first, unknown members, whitespace",
			in:       " {\n \"items\" : [ " + smallPod("a", "1") + " ] ,\n\t\"extra\": {\"x\": [1, 2.5e3, true, false, null, \"}]\"]},\r\n\"metadata\": {\"resourceVersion\": \"5\", \"selfLink\": \"/x\"}, \"n\": -1 } \n",
			wantMeta: meta.ListMeta{ResourceVersion: "5"},
			wantKeys: []string{"ns/a@1"},
		},
		{
			name:     "strings that look like structure",
			in:       list(`{"metadata":{"name":"q\"]}[{\\","namespace":"ns","resourceVersion":"3","annotations":{"a":"\\\"{\"}"}}}`),
			wantType: meta.TypeMeta{Kind: "PodList", APIVersion: "v1"},
			wantMeta: meta.ListMeta{ResourceVersion: "100"},
			wantKeys: []string{`ns/q"]}[{\@3`},
		},
		{
			name:     "escaped member name",
			in:       `{"it\u0065ms":[` + smallPod("a", "1") + `]}`,
			wantKeys: []string{"ns/a@1"},
		},
		{
			name:     "last of a repeated member wins",
			in:       `{"items":[` + smallPod("a", "1") + `],"metadata":{"continue":"c"},"items":[` + smallPod("b", "2") + `],"metadata":{"resourceVersion":"9"}}`,
			wantMeta: meta.ListMeta{ResourceVersion: "9"},
			wantKeys: []string{"ns/b@2"},
		},
		{name: "empty items", in: list(), wantType: meta.TypeMeta{Kind: "PodList", APIVersion: "v1"}, wantMeta: meta.ListMeta{ResourceVersion: "100"}, wantKeys: []string{}},
		{name: "null items", in: `{"kind":"PodList","items":null}`, wantType: meta.TypeMeta{Kind: "PodList"}},
		{name: "no items", in: `{"kind":"PodList","metadata":{"resourceVersion":"8"}}`, wantType: meta.TypeMeta{Kind: "PodList"}, wantMeta: meta.ListMeta{ResourceVersion: "8"}},
		{name: "empty object", in: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"one byte at a time", iotest.OneByteReader},
				{"EOF with data", iotest.DataErrReader},
			} {
				got, err := rest.DecodeList(rd.wrap(strings.NewReader(tc.in)), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
				if err != nil {
					t.Fatalf("%s: DecodeList: %v", rd.name, err)
				}
				if diff := cmp.Diff(tc.wantType, got.TypeMeta); diff != "" {
					t.Errorf("%s: TypeMeta (-want +got):\n%s", rd.name, diff)
				}
				if diff := cmp.Diff(tc.wantMeta, got.Metadata); diff != "" {
					t.Errorf("%s: Metadata (-want +got):\n%s", rd.name, diff)
				}
				if diff := cmp.Diff(tc.wantKeys, keys(got.Items)); diff != "" {
					t.Errorf("%s: items (-want +got):\n%s", rd.name, diff)
				}
			}
		})
	}
}

// TestDecodeListRealPods decodes copies of a real pod, read in pieces of many
// sizes, including items larger than the decoder's buffer.
func TestDecodeListRealPods(t *testing.T) {
	pod := realPod(t)
	var want meta.ObjectMeta
	{
		o, err := decodeTestObj(pod)
		if err != nil {
			t.Fatalf("decode testdata/pod.json: %v", err)
		}
		want = o.Meta
	}
	big := bytes.Replace(pod, []byte(`"spec":{`), []byte(`"spec":{"padding":"`+strings.Repeat(`x\"`, 100<<10)+`",`), 1)
	for _, tc := range []struct {
		name string
		in   []byte
		n    int
		rd   func(io.Reader) io.Reader
	}{
		{"50 pods", podList(pod, 50, "777"), 50, func(r io.Reader) io.Reader { return r }},
		{"50 pods, odd reads", podList(pod, 50, "777"), 50, func(r io.Reader) io.Reader { return &chunkReader{r: r, sizes: []int{1, 7, 4093, 65536, 3, 20000}} }},
		{"items over 200 KB", podList(big, 3, "777"), 3, func(r io.Reader) io.Reader { return r }},
		{"items over 200 KB, odd reads", podList(big, 3, "777"), 3, func(r io.Reader) io.Reader { return &chunkReader{r: r, sizes: []int{65535, 1, 2}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rest.DecodeList(tc.rd(bytes.NewReader(tc.in)), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
			if err != nil {
				t.Fatalf("DecodeList: %v", err)
			}
			if got.Metadata.ResourceVersion != "777" || len(got.Items) != tc.n {
				t.Fatalf("got rv %q and %d items, want 777 and %d", got.Metadata.ResourceVersion, len(got.Items), tc.n)
			}
			for i, o := range got.Items {
				if o.Meta.Name != want.Name || o.Meta.UID != want.UID || !bytes.Equal(o.Meta.Unmodelled("managedFields"), want.Unmodelled("managedFields")) {
					t.Fatalf("item %d: got %s/%s uid %s, want %s/%s uid %s", i, o.Meta.Namespace, o.Meta.Name, o.Meta.UID, want.Namespace, want.Name, want.UID)
				}
			}
		})
	}
}

// chunkReader returns reads of the sizes given, in turn.
type chunkReader struct {
	r     io.Reader
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	n := c.sizes[c.i%len(c.sizes)]
	c.i++
	return c.r.Read(p[:min(n, len(p))])
}

func TestDecodeListLimits(t *testing.T) {
	pod := smallPod("a", "1") // 106 bytes
	big := smallPod(strings.Repeat("b", 200), "2")
	for _, tc := range []struct {
		name      string
		in        string
		lim       rest.ListLimits
		wantIn    string
		wantLarge *rest.ItemTooLargeError
		wantMany  *rest.TooManyItemsError
	}{
		{"item too large", list(pod, big), rest.ListLimits{MaxItemBytes: 200}, "decode list item 1", &rest.ItemTooLargeError{Index: 1, Limit: 200}, nil},
		{"item too large, truncated after", list(pod, big)[:len(list(pod))+150], rest.ListLimits{MaxItemBytes: 120}, "decode list item 1", &rest.ItemTooLargeError{Index: 1, Limit: 120}, nil},
		{"metadata too large", `{"metadata":{"continue":"` + strings.Repeat("c", 300) + `"}}`, rest.ListLimits{MaxItemBytes: 200}, "decode list metadata", &rest.ItemTooLargeError{Index: -1, Limit: 200}, nil},
		{"other member too large", `{"x":"` + strings.Repeat("c", 300) + `"}`, rest.ListLimits{MaxItemBytes: 200}, `decode list: member "x"`, &rest.ItemTooLargeError{Index: -1, Limit: 200}, nil},
		{"too many items", list(pod, pod, pod), rest.ListLimits{MaxItems: 2}, "decode list item 2", nil, &rest.TooManyItemsError{Limit: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rest.DecodeList(strings.NewReader(tc.in), wire.JSON, jsonCodec(decodeTestObj), tc.lim)
			if err == nil {
				t.Fatalf("DecodeList succeeded with %d items, want an error", len(got.Items))
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q does not say %q", err, tc.wantIn)
			}
			if tc.wantLarge != nil {
				var e *rest.ItemTooLargeError
				if !errors.As(err, &e) {
					t.Fatalf("got %v, want an *ItemTooLargeError", err)
				}
				if diff := cmp.Diff(tc.wantLarge, e); diff != "" {
					t.Errorf("ItemTooLargeError (-want +got):\n%s", diff)
				}
			}
			if tc.wantMany != nil {
				var e *rest.TooManyItemsError
				if !errors.As(err, &e) {
					t.Fatalf("got %v, want a *TooManyItemsError", err)
				}
				if diff := cmp.Diff(tc.wantMany, e); diff != "" {
					t.Errorf("TooManyItemsError (-want +got):\n%s", diff)
				}
			}
		})
	}

	// At the limits exactly, all is well.
	got, err := rest.DecodeList(strings.NewReader(list(pod, pod)), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{MaxItemBytes: int64(len(pod)), MaxItems: 2})
	if err != nil {
		t.Fatalf("DecodeList at the limits: %v", err)
	}
	if len(got.Items) != 2 {
		t.Errorf("got %d items, want 2", len(got.Items))
	}
}

// TestDecodeListTruncated cuts a list at every byte: each cut must be reported as
// io.ErrUnexpectedEOF, never as a shorter list.
func TestDecodeListTruncated(t *testing.T) {
	in := `{"kind":"PodList","metadata":{"resourceVersion":"5","remainingItemCount":12},"x":[true,null,-1.5e3],"items":[` +
		smallPod("a", "1") + `,{"metadata":{"name":"e\"\\\u00e9"}}]}`
	for i, failed := 0, 0; i < len(in) && failed < 5; i++ {
		_, err := rest.DecodeList(strings.NewReader(in[:i]), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			failed++
			t.Errorf("cut at %d (%q): got %v, want io.ErrUnexpectedEOF", i, in[max(0, i-10):i], err)
		}
	}
	if _, err := rest.DecodeList(strings.NewReader(in), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{}); err != nil {
		t.Errorf("whole list: %v", err)
	}
}

func TestDecodeListMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantIn string
		wantOffset       int64 // of the *jsonx.SyntaxError; -1 when the error is another
	}{
		{"not an object", `[]`, "decode list", 0},
		{"bad item member", list(`{"metadata":{"name":1}}`), "decode list item 0", -1},
		{"mismatched brackets in item", `{"items":[{"a":[}]}`, "decode list item 0", 16},
		{"missing comma between items", `{"items":[{} {}]}`, "decode list item 0", 13},
		{"scalar item", `{"items":[1]}`, "decode list item 0", -1},
		{"items not an array", `{"items":{}}`, "decode list items", 9},
		{"metadata of the wrong type", `{"metadata":{"resourceVersion":5}}`, "decode list metadata", 31},
		{"metadata not an object", `{"metadata":"x"}`, "decode list metadata", 12},
		{"kind not a string", `{"kind":{}}`, `member "kind"`, 8},
		{"bare word", `{"kind":PodList}`, "decode list", 8},
		{"bad literal", `{"x":nope}`, `member "x"`, 5},
		{"bad number", `{"x":01}`, `member "x"`, 5},
		{"member name not a string", `{kind:"x"}`, "decode list", 1},
		{"missing colon", `{"kind" "x"}`, "decode list", 8},
		{"missing comma", `{"kind":"x" "y":1}`, "decode list", 12},
		{"data after the list", `{"kind":"PodList"} {}`, "data after the list", 19},
		{"deep nesting", `{"items":[` + strings.Repeat("[", 10000) + `]}`, "nesting too deep", 10008},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rest.DecodeList(strings.NewReader(tc.in), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
			if err == nil {
				t.Fatalf("DecodeList succeeded with %+v, want an error", got)
			}
			if got != nil {
				t.Errorf("DecodeList returned a list with its error")
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Errorf("error %q does not say %q", err, tc.wantIn)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %q claims truncation", err)
			}
			var se *jsonx.SyntaxError
			if tc.wantOffset >= 0 {
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want a *jsonx.SyntaxError", err)
				}
				if se.Offset != tc.wantOffset {
					t.Errorf("offset = %d, want %d (%v)", se.Offset, tc.wantOffset, err)
				}
			}
		})
	}
}

func TestDecodeListReadError(t *testing.T) {
	boom := errors.New("connection reset")
	in := list(smallPod("a", "1"), smallPod("b", "2"))
	r := io.MultiReader(strings.NewReader(in[:len(in)/2]), iotest.ErrReader(boom))
	_, err := rest.DecodeList(r, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the read error", err)
	}
}

// TestDecodeListDecodeError keeps the item decoder's own error reachable.
func TestDecodeListDecodeError(t *testing.T) {
	bad := errors.New("not a pod")
	decode := func([]byte) (int, error) { return 0, bad }
	_, err := rest.DecodeList(strings.NewReader(list(smallPod("a", "1"))), wire.JSON, jsonCodec(decode), rest.ListLimits{})
	if !errors.Is(err, bad) || !strings.Contains(err.Error(), "decode list item 0: at byte 82") {
		t.Errorf("got %v, want decode's error for item 0 at byte 82", err)
	}
}

func FuzzDecodeList(f *testing.F) {
	pod := realPod(f)
	f.Add(podList(pod, 2, "268"))
	f.Add([]byte(list(smallPod("a", "1"), smallPod("b", "2"))))
	f.Add([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"x","remainingItemCount":3},"items":null}`))
	f.Add([]byte(`{"items":[{"metadata":{"name":"q\"]}[{\\"}}],"x":[1,-2.5e3,true,false,null]}`))
	f.Add([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}`))
	f.Add([]byte(`{}`))
	f.Add(podList(pod, 1, "1")[:5000])
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := rest.DecodeList(bytes.NewReader(data), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{MaxItemBytes: 1 << 20, MaxItems: 100})
		if err != nil {
			if got != nil {
				t.Fatalf("a list came with error %v", err)
			}
			return
		}
		// Whatever DecodeList accepts, encoding/json must accept, with the same
		// items and resourceVersion.
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatalf("DecodeList accepted what encoding/json rejects: %v", err)
		}
		var items []json.RawMessage
		if raw, ok := top["items"]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				t.Fatalf("items: %v", err)
			}
		}
		if len(items) != len(got.Items) {
			t.Fatalf("got %d items, encoding/json sees %d", len(got.Items), len(items))
		}
		var md map[string]json.RawMessage
		var rv string
		if raw, ok := top["metadata"]; ok {
			if err := json.Unmarshal(raw, &md); err != nil {
				t.Fatalf("metadata: %v", err)
			}
			if r, ok := md["resourceVersion"]; ok {
				if err := json.Unmarshal(r, &rv); err != nil {
					t.Fatalf("resourceVersion: %v", err)
				}
			}
		}
		// encoding/json replaces invalid UTF-8; podwatch keeps bytes as sent.
		if utf8.ValidString(got.Metadata.ResourceVersion) && rv != got.Metadata.ResourceVersion {
			t.Fatalf("resourceVersion %q, encoding/json sees %q", got.Metadata.ResourceVersion, rv)
		}
	})
}

// TestListCancel stops a list whose body stalls halfway by cancelling its context.
func TestListCancel(t *testing.T) {
	in := list(smallPod("a", "1"), smallPod("b", "2"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, in[:len(in)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, err := rest.NewClient(rest.Config{Host: srv.URL, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.Get().Resource("pods").Stream(ctx)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := rest.DecodeList(resp.Body, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("DecodeList after cancel: got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DecodeList did not return after its request was cancelled")
	}
}
