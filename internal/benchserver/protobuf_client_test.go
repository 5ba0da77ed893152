package benchserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// TestProtobuf: a protobuf client (podwatch's own, which refuses any other
// answer) reads the same list and watch list as a JSON client.
func TestProtobuf(t *testing.T) {
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPods(tmpl, 4, "node-1", PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(&Server{Pods: p, M: 6})
	t.Cleanup(hs.Close)
	got := map[string][]string{}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeProtobuf} {
		c, err := rest.NewClient(rest.Config{Host: hs.URL, ContentType: ct})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := pods(c).Limit(3).Stream(context.Background())
		if err != nil {
			t.Fatalf("%s list: %v", ct, err)
		}
		list, err := rest.DecodeList(resp.Body, c.Format(), api.Codec, rest.ListLimits{})
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s list: %v", ct, err)
		}
		got[ct] = append(got[ct], "list rv="+list.Metadata.ResourceVersion+" continue="+fmt.Sprint(list.Metadata.Continue != ""))
		for _, p := range list.Items {
			got[ct] = append(got[ct], p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
		}
		resp, err = pods(c).Watch(true).SendInitialEvents(true).ResourceVersionMatch("NotOlderThan").
			AllowWatchBookmarks(true).TimeoutSeconds(1).Stream(context.Background())
		if err != nil {
			t.Fatalf("%s watch: %v", ct, err)
		}
		d := watch.NewDecoder(resp.Body, api.Codec, watch.DecoderOptions{Format: c.Format()})
		for {
			ev, err := d.Decode()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s watch: %v", ct, err)
			}
			got[ct] = append(got[ct], fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.Metadata.Name, ev.Object.Metadata.ResourceVersion))
		}
		resp.Body.Close()
	}
	if len(got[wire.ContentTypeJSON]) != 1+3+4+1+6 {
		t.Fatalf("JSON: %d lines, want a list of 3 and 11 events: %v", len(got[wire.ContentTypeJSON]), got[wire.ContentTypeJSON])
	}
	if d := cmp.Diff(got[wire.ContentTypeJSON], got[wire.ContentTypeProtobuf]); d != "" {
		t.Errorf("protobuf client differs (-json +protobuf):\n%s", d)
	}
}

// TestProtobufWire: the server's own protobuf answers are, byte for byte,
// what the one JSON to protobuf converter (apiwire.Respond) makes of its JSON
// answers, and transcode back to those JSON answers: list pages, a watch
// list and a watch of events, with copies plain and varied. 120 copies and
// 30 events move every hole's value through several lengths (the
// resourceVersion's and the pod IP's digits), so several shapes serve.
func TestProtobufWire(t *testing.T) {
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, vary := range []bool{false, true} {
		t.Run(fmt.Sprintf("vary=%v", vary), func(t *testing.T) {
			p, err := NewPods(tmpl, 120, "node-1", PodsOptions{Vary: vary})
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{Pods: p, M: 30}
			fast := httptest.NewServer(s)
			t.Cleanup(fast.Close)
			// The oracle: the server's JSON, converted as every other
			// podwatch server's is.
			converted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				pw, _ := apiwire.Respond(w, r)
				r = r.Clone(r.Context())
				r.Header.Set("Accept", wire.ContentTypeJSON)
				s.ServeHTTP(pw, r)
			}))
			t.Cleanup(converted.Close)
			query := "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1"
			watchQ := query + "&watch=true&timeoutSeconds=1&allowWatchBookmarks=true"
			for _, path := range []string{
				query + "&limit=50",
				query + "&limit=50&continue=" + url.QueryEscape(apiwire.Continue{RV: "120", After: "50"}.Encode()),
				query + "&limit=50&continue=" + url.QueryEscape(apiwire.Continue{RV: "120", After: "100"}.Encode()),
				watchQ + "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
				watchQ + "&resourceVersion=120",
			} {
				js := get(t, fast.URL+path, wire.ContentTypeJSON)
				pb := get(t, fast.URL+path, wire.ContentTypeProtobuf)
				if want := get(t, converted.URL+path, wire.ContentTypeProtobuf); !bytes.Equal(pb, want) {
					t.Errorf("%s: %d protobuf bytes differ from the converter's %d", path, len(pb), len(want))
				}
				got := transcode(t, pb, strings.Contains(path, "watch=true"))
				want := jsonDocuments(t, js)
				if !strings.Contains(path, "watch=true") {
					untypeItems(want[0])
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d protobuf documents, %d JSON", path, len(got), len(want))
				}
				for i := range want {
					if d := cmp.Diff(want[i], got[i]); d != "" {
						t.Fatalf("%s: document %d reads back differently (-json +protobuf):\n%s", path, i, d)
					}
				}
			}
			// resourceVersions of 1, 2 and 3 digits: at least three shapes.
			if n := len(p.proto.pods.shapes); n < 3 {
				t.Errorf("%d shapes served the copies, want at least 3", n)
			}
		})
	}
}

func get(t *testing.T, u, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v: %.300s", u, resp.StatusCode, err, body)
	}
	return body
}

// transcode reads a protobuf answer back as JSON documents: a list's one, or
// a watch's events as {"type","object"}.
func transcode(t *testing.T, body []byte, watch bool) []any {
	t.Helper()
	var tc protowire.Transcoder
	object := func(env []byte, at int64) any {
		u, err := protowire.ParseEnvelope(env, at)
		if err != nil {
			t.Fatal(err)
		}
		js, err := tc.Object(u)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(js, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if !watch {
		return []any{object(body, 0)}
	}
	var docs []any
	for at := 0; at < len(body); {
		if len(body)-at < 4 {
			t.Fatalf("a frame's length cut at byte %d", at)
		}
		n := int(binary.BigEndian.Uint32(body[at:]))
		ev, err := protowire.ParseWatchEvent(body[at+4:at+4+n], int64(at+4))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, map[string]any{"type": ev.Type, "object": object(ev.Object, ev.ObjectOffset)})
		at += 4 + n
	}
	return docs
}

// untypeItems drops each list item's kind and apiVersion, which the
// server's JSON list items carry (the template's) and a protobuf list item,
// a bare Pod message, cannot.
func untypeItems(list any) {
	items, _ := list.(map[string]any)["items"].([]any)
	for _, it := range items {
		delete(it.(map[string]any), "kind")
		delete(it.(map[string]any), "apiVersion")
	}
}

// jsonDocuments splits a JSON answer into its documents.
func jsonDocuments(t *testing.T, body []byte) []any {
	t.Helper()
	var docs []any
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return docs
		} else if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, v)
	}
}
