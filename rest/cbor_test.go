package rest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/wire"
)

func TestCBORAcceptAndContentType(t *testing.T) {
	// A server without CBOR that answers JSON anyway.
	c, answer := refusesOtherFormats(t, wire.ContentTypeCBOR)
	ctx := context.Background()
	var err error

	// The real apiserver with the gate off: 406 and a JSON Status.
	answer(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotAcceptable)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}`))
	})
	_, err = c.Get().Resource("pods").Do(ctx)
	if se, ok := rest.AsStatusError(err); !ok || se.Status.Code != http.StatusNotAcceptable || se.Status.Reason != "NotAcceptable" {
		t.Fatalf("406: got %v, want a *StatusError with the Status", err)
	}

	answer(func(w http.ResponseWriter) { w.Header().Set("Content-Type", wire.ContentTypeCBORSeq) })
	if _, err := c.Get().Resource("pods").Watch(true).Do(ctx); err != nil {
		t.Fatalf("cbor-seq watch answer: %v", err)
	}

	status, err := cborenc.EncodeJSON([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" is forbidden","reason":"Forbidden","code":403}`))
	if err != nil {
		t.Fatal(err)
	}
	answer(func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeCBOR)
		w.WriteHeader(http.StatusForbidden)
		w.Write(status)
	})
	_, err = c.Get().Resource("pods").Do(ctx)
	if se, ok := rest.AsStatusError(err); !ok || !rest.IsForbidden(err) || se.Status.Message != `pods "x" is forbidden` {
		t.Fatalf("CBOR 403: got %v, want the Status it holds", err)
	}
}

func TestDecodeListCBOR(t *testing.T) {
	pod, err := os.ReadFile("cborwire/testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	list := append([]byte(`{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"216","continue":"c"},"items":[`), pod...)
	list = append(append(list, ','), pod...)
	list = append(list, "]}"...)
	item, err := cborenc.EncodeJSON(list)
	if err != nil {
		t.Fatal(err)
	}
	names := func(b []byte) ([]byte, error) { return b, nil }
	l, err := rest.DecodeList(bytes.NewReader(item), wire.CBOR, jsonCodec(names), rest.ListLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != "PodList" || l.APIVersion != "v1" || l.Metadata.ResourceVersion != "216" || l.Metadata.Continue != "c" || len(l.Items) != 2 {
		t.Fatalf("got %+v %+v, %d items", l.TypeMeta, l.Metadata, len(l.Items))
	}
	for _, tt := range []struct {
		name string
		lim  rest.ListLimits
		want any
	}{
		{"too many", rest.ListLimits{MaxItems: 1}, new(*rest.TooManyItemsError)},
		{"too large", rest.ListLimits{MaxItemBytes: 1000}, new(*rest.ItemTooLargeError)},
	} {
		_, err := rest.DecodeList(bytes.NewReader(item), wire.CBOR, jsonCodec(names), tt.lim)
		if !errors.As(err, tt.want) {
			t.Errorf("%s: got %v, want a %T", tt.name, err, tt.want)
		}
	}
	_, err = rest.DecodeList(bytes.NewReader(item[:len(item)/2]), wire.CBOR, jsonCodec(names), rest.ListLimits{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a truncated list: got %v, want io.ErrUnexpectedEOF", err)
	}
}

func FuzzDecodeListCBOR(f *testing.F) {
	for _, js := range []string{
		`{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"42"},"items":[{"metadata":{"name":"a","namespace":"x","resourceVersion":"40"}}]}`,
		`{"kind":"PodList","items":null}`,
	} {
		item, err := cborenc.EncodeJSON([]byte(js))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(item)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := rest.DecodeList(bytes.NewReader(b), wire.CBOR, jsonCodec(decodeTestObj), rest.ListLimits{MaxItemBytes: 1 << 16, MaxItems: 100})
		if err == nil && len(l.Items) > 100 {
			t.Fatalf("%d items past the limit", len(l.Items))
		}
		if err == nil && l.Items == nil {
			t.Fatalf("a decoded list has nil Items")
		}
	})
}
