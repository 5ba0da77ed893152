package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/wire"
)

// cborGate is the alpha feature gate under which the apiserver serves CBOR.
const cborGate = "CBORServingAndStorage"

// TestCBOR runs podwatch in CBOR against a real apiserver started with the
// CBORServingAndStorage gate, beside the same runs in JSON and protobuf;
// the 410 comes last, as it restarts the apiserver.
func TestCBOR(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{FeatureGates: map[string]bool{cborGate: true}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	t.Run("objects transcode to the JSON answers", func(t *testing.T) { testCBORTranscoding(t, ctx, c) })
	t.Run("a reflector pushes as in JSON and protobuf", func(t *testing.T) {
		testSameWatch(t, ctx, c, "cbor-match", wire.ContentTypeJSON, wire.ContentTypeProtobuf, wire.ContentTypeCBOR)
	})
	t.Run("podwatch watch prints as in JSON and protobuf", func(t *testing.T) {
		testSameCommand(t, ctx, c, "cbor-cmd", "json", "protobuf", "cbor")
	})
	t.Run("a 410 after compaction relists", func(t *testing.T) {
		testGone(t, ctx, c, "cbor-gone", wire.ContentTypeCBOR, wire.ContentTypeCBORSeq)
	})
}

// testCBORTranscoding fetches real pods, the recorded testdata pod among
// them, a list and a 404 in JSON and CBOR, and checks that the CBOR answers
// are self-described items that transcode to the JSON answers.
func testCBORTranscoding(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "cbor-get"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	createRecordedPod(t, ctx, c, ns)
	for _, name := range []string{"web", "recorded"} {
		path := "/api/v1/namespaces/" + ns + "/pods/" + name
		js := get(t, ctx, c, path, wire.ContentTypeJSON, http.StatusOK)
		item := get(t, ctx, c, path, wire.ContentTypeCBOR, http.StatusOK)
		if !bytes.HasPrefix(item, []byte{0xd9, 0xd9, 0xf7}) {
			t.Errorf("%s: the CBOR answer starts % x, want the self-describe tag", name, item[:min(3, len(item))])
		}
		var tc cborwire.Transcoder
		got, err := tc.JSON(item, 0)
		if err != nil {
			t.Fatalf("%s: transcode: %v", name, err)
		}
		if d := cmp.Diff(asJSON(t, js), asJSON(t, got)); d != "" {
			t.Errorf("%s: transcoded CBOR differs from the JSON answer (-json +cbor):\n%s", name, d)
		}
	}

	// A list decodes to the same pods in both.
	lists := map[string][]any{}
	for _, f := range []wire.Format{wire.JSON, wire.CBOR} {
		ct := f.ContentType()
		body := get(t, ctx, c, "/api/v1/namespaces/"+ns+"/pods", ct, http.StatusOK)
		l, err := rest.DecodeList(bytes.NewReader(body), f, api.Codec, rest.ListLimits{})
		if err != nil {
			t.Fatalf("decode %s list: %v", ct, err)
		}
		if l.Kind != "PodList" || l.Metadata.ResourceVersion == "" || len(l.Items) != 2 {
			t.Fatalf("%s list: kind %q rv %q %d items, want a PodList with an rv and 2 items", ct, l.Kind, l.Metadata.ResourceVersion, len(l.Items))
		}
		for _, p := range l.Items {
			b, _ := p.MarshalJSON()
			lists[ct] = append(lists[ct], asJSON(t, b))
		}
	}
	if d := cmp.Diff(lists[wire.ContentTypeJSON], lists[wire.ContentTypeCBOR]); d != "" {
		t.Errorf("list items differ (-json +cbor):\n%s", d)
	}

	// A 404 to a CBOR client is a CBOR Status, read as the JSON one is.
	errs := map[string]*rest.StatusError{}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeCBOR} {
		client, err := rest.NewClient(rest.Config{Host: c.URL, BearerToken: c.AdminToken, TLS: rest.TLSConfig{CAData: c.CAData}, ContentType: ct})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Get().Namespace(ns).Resource("pods").Name("missing").Do(ctx)
		se, ok := rest.AsStatusError(err)
		if !ok || !rest.IsNotFound(err) || se.Body != "" {
			t.Fatalf("%s: got %v, want a 404 Status", ct, err)
		}
		se.Where = ""
		errs[ct] = se
	}
	if d := cmp.Diff(errs[wire.ContentTypeJSON], errs[wire.ContentTypeCBOR]); d != "" {
		t.Errorf("404 Status differs (-json +cbor):\n%s", d)
	}
}

// testCBORGateOff asks an apiserver with the default gates for CBOR: it
// answers 406 NotAcceptable, which a CBOR client reports as such.
func testCBORGateOff(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	client, err := rest.NewClient(rest.Config{Host: c.URL, BearerToken: c.NodeToken, TLS: rest.TLSConfig{CAData: c.CAData}, ContentType: wire.ContentTypeCBOR})
	if err != nil {
		t.Fatal(err)
	}
	for _, watch := range []bool{false, true} {
		_, err = client.Get().Resource("pods").Param("fieldSelector", "spec.nodeName="+node).Watch(watch).Do(ctx)
		se, ok := rest.AsStatusError(err)
		if !ok || se.Status.Code != http.StatusNotAcceptable || se.Status.Reason != "NotAcceptable" {
			t.Fatalf("watch=%v: got %v, want 406 NotAcceptable", watch, err)
		}
		var ce *rest.ContentTypeError
		if errors.As(err, &ce) {
			t.Fatalf("watch=%v: a *ContentTypeError for a refusal: %v", watch, err)
		}
	}
	// The refusal, as docs/PROTOCOL.md quotes it: a JSON Status.
	rec := wireRecording{}
	body := cborGet(t, ctx, c, &rec, "notacceptable.json", "/api/v1/namespaces/default/pods", wire.ContentTypeCBOR, http.StatusNotAcceptable)
	var st struct{ Kind, Reason string }
	if ct := rec.meta["notacceptable.json"].ContentType; ct != wire.ContentTypeJSON || json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Reason != "NotAcceptable" {
		t.Fatalf("the 406 is %q: %s; want a JSON NotAcceptable Status", ct, body)
	}
	if *updateCBORWire {
		writeCBORWire(t, &rec)
	}
}
