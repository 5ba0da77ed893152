package protoenc_test

import (
	"bytes"
	"testing"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/protowire"
)

// The Encoder rest/protowire registers writes what protowire reads back:
// an envelope of a Pod whose JSON transcodes to the same members.
func TestEncoderRoundTrips(t *testing.T) {
	pod := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"spec":{"nodeName":"node-a"}}`)
	b, err := protoenc.New().Envelope(nil, pod)
	if err != nil {
		t.Fatal(err)
	}
	u, err := protowire.ParseEnvelope(b, 0)
	if err != nil || u.Kind != "Pod" || u.APIVersion != "v1" {
		t.Fatalf("envelope: %+v, %v; want a v1 Pod", u, err)
	}
	var tc protowire.Transcoder
	js, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"a"`, `"namespace":"ns"`, `"resourceVersion":"7"`, `"nodeName":"node-a"`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("transcoded %s, want it to hold %s", js, want)
		}
	}
	if _, err := protoenc.New().Message(nil, "NoSuchKind", pod); err == nil {
		t.Error("a kind the schema does not hold was encoded")
	}
}
