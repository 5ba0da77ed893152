package apiwire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

func TestNegotiate(t *testing.T) {
	const no = wire.Format(99)
	for accept, want := range map[string]wire.Format{
		"": wire.JSON, "*/*": wire.JSON, "application/json": wire.JSON, "application/json, */*": wire.JSON,
		"application/vnd.kubernetes.protobuf,application/json":                                                            wire.Protobuf,
		"application/vnd.kubernetes.protobuf":                                                                             wire.Protobuf,
		"application/vnd.kubernetes.protobuf;stream=watch":                                                                wire.Protobuf,
		"application/json,application/vnd.kubernetes.protobuf":                                                            wire.JSON,
		"application/json;q=0.5,application/vnd.kubernetes.protobuf":                                                      wire.Protobuf,
		"application/vnd.kubernetes.protobuf;q=0,application/json":                                                        wire.JSON,
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json": wire.JSON,
		"application/json;as=Table;v=v1;g=meta.k8s.io":                                                                    wire.JSON,
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io":                                                 no,
		"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io":                                                    no,
		"text/html": no,
	} {
		got, ok := Negotiate(accept)
		if !ok {
			got = no
		}
		if got != want {
			t.Errorf("Negotiate(%q) = %v, want %v", accept, got, want)
		}
		if Accepts(accept) != (want != no) {
			t.Errorf("Accepts(%q) = %t, want %t", accept, !(want != no), want != no)
		}
	}
}

const kubeletAccept = "application/vnd.kubernetes.protobuf,application/json"

// serve runs handler for a GET of target with accept, through Respond as
// the servers use it.
func serve(t *testing.T, target, accept string, handler func(w http.ResponseWriter)) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	w, _ := Respond(rec, req)
	handler(w)
	return rec
}

func TestRespondList(t *testing.T) {
	page := ListPage("PodList", ListMeta{ResourceVersion: "7"}, [][]byte{[]byte(`{"metadata":{"name":"a","namespace":"ns"},"spec":{"containers":[{"name":"c"}],"nodeName":"n"},"status":{}}`)})
	rec := serve(t, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		// Written in pieces, as the model and the bench server write lists.
		for _, part := range [][]byte{page[:10], page[10:50], page[50:], []byte("\n")} {
			w.Write(part)
		}
	})
	if ct := rec.Header().Get("Content-Type"); ct != wire.ContentTypeProtobuf {
		t.Fatalf("Content-Type %q, want %q", ct, wire.ContentTypeProtobuf)
	}
	enc := protoenc.New()
	want, err := enc.Envelope(nil, page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Errorf("body %q, want the list's envelope %q", rec.Body.Bytes(), want)
	}
	// The same answer to a JSON client is untouched.
	rec = serve(t, "/api/v1/pods", "application/json", func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(page)
	})
	if rec.Header().Get("Content-Type") != wire.ContentTypeJSON || !bytes.Equal(rec.Body.Bytes(), page) {
		t.Errorf("JSON client got %q %q", rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
}

// TestRespondWatch: events split across writes anywhere, and several in one
// write, come out as one frame each, flushed as they complete.
func TestRespondWatch(t *testing.T) {
	events := [][]byte{
		Event(Added, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"},"spec":{"containers":null},"status":{}}`)),
		Event(Bookmark, PodBookmark("6", true)),
		ErrorEvent(Gone("too old resource version: 1 (5)")),
	}
	body := bytes.Join(events, nil)
	rec := serve(t, "/api/v1/watch/pods?resourceVersion=4", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i := 0; i < len(body); i += 37 {
			w.Write(body[i:min(i+37, len(body))])
		}
	})
	if ct := rec.Header().Get("Content-Type"); ct != wire.ContentTypeProtobufWatch {
		t.Fatalf("Content-Type %q, want the protobuf watch stream", ct)
	}
	r := bytes.NewReader(rec.Body.Bytes())
	var tc protowire.Transcoder
	for i, ev := range events {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		frame := make([]byte, n)
		if _, err := io.ReadFull(r, frame); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		we, err := protowire.ParseWatchEvent(frame, 0)
		if err != nil {
			t.Fatal(err)
		}
		u, err := protowire.ParseEnvelope(we.Object, 0)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := tc.Object(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(AppendEvent(nil, we.Type, obj)); got != string(ev) {
			t.Errorf("frame %d reads back as %s, want %s", i, got, ev)
		}
	}
	if r.Len() != 0 {
		t.Errorf("%d bytes after the frames", r.Len())
	}
}

// TestRespondStatus: an error answer, to a list or a watch, is a Status
// envelope; a 406 stays wire.JSON, as the apiserver writes it.
func TestRespondStatus(t *testing.T) {
	for _, target := range []string{"/api/v1/pods", "/api/v1/pods?watch=1"} {
		rec := serve(t, target, kubeletAccept, func(w http.ResponseWriter) { Gone("gone").Write(w) })
		if rec.Code != http.StatusGone || rec.Header().Get("Content-Type") != wire.ContentTypeProtobuf {
			t.Fatalf("%s: %d %q, want 410 in protobuf", target, rec.Code, rec.Header().Get("Content-Type"))
		}
		u, err := protowire.ParseEnvelope(rec.Body.Bytes(), 0)
		if err != nil || u.Kind != "Status" {
			t.Fatalf("%s: envelope %+v, %v; want a Status", target, u, err)
		}
	}
	rec := serve(t, "/api/v1/pods", "text/html", func(w http.ResponseWriter) { NotAcceptable(AvailableRepresentations).Write(w) })
	if rec.Header().Get("Content-Type") != wire.ContentTypeJSON || !strings.Contains(rec.Body.String(), `"code":406`) {
		t.Errorf("406: %q %s, want the JSON Status", rec.Header().Get("Content-Type"), rec.Body.String())
	}
}

// TestRespondDiscovery: discovery is answered in protobuf too, as the
// apiserver answers it, and reads back as the JSON podwatch serves.
func TestRespondDiscovery(t *testing.T) {
	for _, path := range []string{"/api", "/api/v1", "/apis"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		js := httptest.NewRecorder()
		ServeDiscovery(js, req)
		rec := serve(t, path, kubeletAccept, func(w http.ResponseWriter) { ServeDiscovery(w, req) })
		if rec.Header().Get("Content-Type") != wire.ContentTypeProtobuf {
			t.Fatalf("%s: Content-Type %q", path, rec.Header().Get("Content-Type"))
		}
		u, err := protowire.ParseEnvelope(rec.Body.Bytes(), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var tc protowire.Transcoder
		back, err := tc.Object(u)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var want, got any
		if err := json.Unmarshal(js.Body.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(back, &got); err != nil {
			t.Fatal(err)
		}
		// Protobuf holds no difference between an empty list and none.
		if d := cmp.Diff(want, got, equateNoneAndEmpty); d != "" {
			t.Errorf("%s: protobuf discovery reads back differently (-json +protobuf):\n%s", path, d)
		}
	}
	// Aggregated discovery has a media type of its own, and stays JSON.
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", aggregatedV2+","+wire.ContentTypeJSON)
	rec := serve(t, "/apis", wire.ContentTypeProtobuf+","+wire.ContentTypeJSON, func(w http.ResponseWriter) { ServeDiscovery(w, req) })
	if rec.Header().Get("Content-Type") != aggregatedV2 {
		t.Errorf("aggregated discovery: Content-Type %q", rec.Header().Get("Content-Type"))
	}
}

// equateNoneAndEmpty takes null and [] in decoded JSON as equal.
var equateNoneAndEmpty = cmp.FilterValues(func(x, y any) bool { return noneOrEmpty(x) && noneOrEmpty(y) }, cmp.Ignore())

func noneOrEmpty(v any) bool {
	a, isArray := v.([]any)
	return v == nil || isArray && len(a) == 0
}

// TestRespondPassesThrough: HTML and bodies the encoder cannot hold reach a
// protobuf client as written.
func TestRespondPassesThrough(t *testing.T) {
	html := "<html>bad gateway</html>"
	rec := serve(t, "/api/v1/pods", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte(html))
	})
	if rec.Body.String() != html {
		t.Errorf("HTML: %q", rec.Body.String())
	}
	first := Event(Added, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`))
	garbage := "\x00\xff}{ not json\n"
	rec = serve(t, "/api/v1/pods?watch=true", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(first)
		w.Write([]byte(garbage))
		w.Write(first)
	})
	if got := rec.Body.String(); !strings.HasSuffix(got, garbage+string(first)) || strings.HasPrefix(got, "{") {
		t.Errorf("after garbage the body goes on raw: %q", got)
	}
}

// TestRespondLeavesProtobuf: a body a server already holds in protobuf
// passes through untouched: the writer converts plain JSON only.
func TestRespondLeavesProtobuf(t *testing.T) {
	enc := protoenc.New()
	frames, err := enc.EventFrame(nil, Event(Bookmark, PodBookmark("6", true)))
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(t, "/api/v1/pods?watch=1", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeProtobufWatch)
		w.Write(frames)
	})
	if !bytes.Equal(rec.Body.Bytes(), frames) || rec.Header().Get("Content-Type") != wire.ContentTypeProtobufWatch {
		t.Errorf("protobuf client: %q %q, want the frames untouched", rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
}
