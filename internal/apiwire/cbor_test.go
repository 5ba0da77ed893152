package apiwire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/wire"
)

func TestNegotiateCBOR(t *testing.T) {
	for accept, want := range map[string]bool{
		"application/cbor":                   true,
		"application/cbor;stream=watch":      true,
		"application/cbor, application/json": true,
		// The apiserver refuses its watch body's own type in Accept.
		"application/cbor-seq": false,
	} {
		f, ok := Negotiate(accept)
		if ok != want || ok && f != wire.CBOR {
			t.Errorf("Negotiate(%q) = %v, %t; want CBOR: %t", accept, f, ok, want)
		}
	}
}

func asJSONValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// A CBOR client's watch is a sequence of self-described items, one per
// event, each reading back as the event the server wrote.
func TestRespondWatchCBOR(t *testing.T) {
	events := [][]byte{
		Event(Added, []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"},"spec":{"containers":null},"status":{}}`)),
		Event(Bookmark, PodBookmark("6", true)),
		ErrorEvent(Gone("too old resource version: 1 (5)")),
	}
	body := bytes.Join(events, nil)
	rec := serve(t, "/api/v1/pods?watch=true&resourceVersion=4", wire.ContentTypeCBOR, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(body); i += 37 {
			w.Write(body[i:min(i+37, len(body))])
		}
	})
	if ct := rec.Header().Get("Content-Type"); ct != wire.ContentTypeCBORSeq {
		t.Fatalf("Content-Type %q, want %q", ct, wire.ContentTypeCBORSeq)
	}
	r := stream.NewReader(bytes.NewReader(rec.Body.Bytes()), 1<<20)
	var f cborwire.Framer
	var tc cborwire.Transcoder
	for i, ev := range events {
		item, _, err := r.Next(&f)
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if !bytes.HasPrefix(item, []byte{0xd9, 0xd9, 0xf7}) {
			t.Errorf("item %d is not self-described", i)
		}
		js, err := tc.JSON(item, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(asJSONValue(t, ev), asJSONValue(t, js)); d != "" {
			t.Errorf("item %d (-want +got):\n%s", i, d)
		}
	}
	if _, _, err := r.Next(&f); err != io.EOF {
		t.Errorf("after the events: %v, want io.EOF", err)
	}
}

// A list and a Status are one item each.
func TestRespondListAndStatusCBOR(t *testing.T) {
	page := ListPage("PodList", ListMeta{ResourceVersion: "7"}, [][]byte{[]byte(`{"metadata":{"name":"a","namespace":"ns"},"spec":{"containers":[{"name":"c"}],"nodeName":"n"},"status":{}}`)})
	st := Gone("expired")
	for name, tc := range map[string]struct {
		body []byte
		code int
	}{"list": {page, http.StatusOK}, "status": {st.JSON(), http.StatusGone}} {
		rec := serve(t, "/api/v1/pods", wire.ContentTypeCBOR, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.code)
			w.Write(tc.body)
		})
		if ct := rec.Header().Get("Content-Type"); ct != wire.ContentTypeCBOR || rec.Code != tc.code {
			t.Fatalf("%s: %d %q, want %d %q", name, rec.Code, ct, tc.code, wire.ContentTypeCBOR)
		}
		var tr cborwire.Transcoder
		js, err := tr.JSON(rec.Body.Bytes(), 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(asJSONValue(t, tc.body), asJSONValue(t, js)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}
