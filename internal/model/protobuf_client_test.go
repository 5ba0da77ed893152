package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// TestProtobufAnswers asks the model the same things in JSON and as the
// kubelet does (protobuf first): each protobuf answer, read back, is the
// JSON answer, and comes with the apiserver's Content-Type.
func TestProtobufAnswers(t *testing.T) {
	const sel = "fieldSelector=spec.nodeName%3Dnode-a"
	for _, tc := range []struct {
		name, path string
		opts       Options
		code       int
		stream     bool
	}{
		{"list", "/api/v1/pods?" + sel, Options{}, 200, false},
		{"list page", "/api/v1/pods?limit=1", Options{}, 200, false},
		{"watch", "/api/v1/pods?watch=true&resourceVersion=3&timeoutSeconds=1&" + sel, Options{}, 200, true},
		{"watch list and its bookmark", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1&" + sel,
			Options{}, 200, true},
		{"ERROR event", "/api/v1/pods?watch=true&resourceVersion=2", Options{GoneAsEvent: true}, 200, true},
		{"410", "/api/v1/pods?watch=true&resourceVersion=2", Options{}, 410, false},
		{"422", "/api/v1/pods?sendInitialEvents=true", Options{}, 422, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fixture(t, tc.opts)
				s.Compact(3)
				js := fetch(t, s, tc.path, wire.ContentTypeJSON)
				pb := fetch(t, s, tc.path, wire.ContentTypeProtobuf+","+wire.ContentTypeJSON)
				if js.code != tc.code || pb.code != tc.code {
					t.Fatalf("codes %d (JSON) and %d (protobuf), want %d", js.code, pb.code, tc.code)
				}
				want := wire.Protobuf.ContentType()
				if tc.stream {
					want = wire.Protobuf.WatchContentType()
				}
				if pb.contentType != want {
					t.Fatalf("Content-Type %q, want %q", pb.contentType, want)
				}
				var back []byte
				if tc.stream {
					back = framesAsJSON(t, pb.body)
				} else {
					back = envelopeAsJSON(t, pb.body)
				}
				if d := cmp.Diff(normal(docs(t, js.body)), normal(docs(t, back))); d != "" {
					t.Errorf("protobuf read back differs from the JSON answer (-json +protobuf):\n%s", d)
				}
			})
		})
	}
}

type fetched struct {
	code        int
	contentType string
	body        []byte
}

func fetch(t *testing.T, s *Server, path, accept string) fetched {
	t.Helper()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, URL+path, nil)
	req.Header.Set("Accept", accept)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return fetched{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

func envelopeAsJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	u, err := protowire.ParseEnvelope(b, 0)
	if err != nil {
		t.Fatalf("envelope: %v", err)
	}
	var tc protowire.Transcoder
	js, err := tc.Object(u)
	if err != nil {
		t.Fatalf("transcode: %v", err)
	}
	return bytes.Clone(js)
}

// framesAsJSON reads a protobuf watch body back as JSON event lines.
func framesAsJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var out []byte
	for len(b) > 0 {
		if len(b) < 4 || int(binary.BigEndian.Uint32(b)) > len(b)-4 {
			t.Fatalf("truncated frame: %q", b)
		}
		n := binary.BigEndian.Uint32(b)
		ev, err := protowire.ParseWatchEvent(b[4:4+n], 0)
		if err != nil {
			t.Fatal(err)
		}
		out = apiwire.AppendEvent(out, ev.Type, envelopeAsJSON(t, ev.Object))
		b = b[4+n:]
	}
	return out
}

// normal leaves out what protobuf cannot tell from JSON's absence: null
// members (the apiserver writes "lastProbeTime": null where the model
// omits it), and a list item's kind and apiVersion, which protobuf items do
// not carry.
func normal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e != nil {
				out[k] = normal(e)
			}
		}
		if items, ok := out["items"].([]any); ok {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					delete(m, "kind")
					delete(m, "apiVersion")
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	}
	return v
}

// docs decodes a body of JSON documents.
func docs(t *testing.T, b []byte) []any {
	t.Helper()
	var out []any
	d := json.NewDecoder(bytes.NewReader(b))
	for d.More() {
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%v in %s", err, b)
		}
		out = append(out, v)
	}
	return out
}
