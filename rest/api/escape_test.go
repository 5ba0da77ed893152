package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// specials are the strings JSON writers part ways on: what encoding/json
// escapes for HTML and for JavaScript, invalid UTF-8, control bytes, DEL,
// quotes and backslashes, and plain non-ASCII text.
var specials = []string{"a<b>&c", "\u2028", "\u2029", "\xff", "\x01\x1f\t\n", "\x7f", `"q"\`, "é☃"}

// podWithSpecials returns the recorded pod's JSON with members made of the
// specials, where a pod models them (annotations, keys and values) and where
// it keeps them (a container's args), written as the apiserver writes them:
// by encoding/json. str makes the string for special i at place kind, so that
// a placeholder of the same length can stand for it.
func podWithSpecials(t *testing.T, str func(i int, kind, s string) string) []byte {
	t.Helper()
	js := bytes.TrimSpace(readRecordedPodJSON(t))
	marshal := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var members, args []string
	for i, s := range specials {
		// Before prometheus.io/path, in key order as the apiserver sorts.
		members = append(members, marshal("podwatch.test/"+str(i, "k", s))+":"+marshal(str(i, "v", s))+",")
		args = append(args, str(i, "a", s))
	}
	for _, e := range []struct{ old, new string }{
		{`"prometheus.io/path":`, strings.Join(members, "") + `"prometheus.io/path":`},
		{`"args":["-c","/etc/web/nginx.conf"]`, `"args":` + marshal(args)},
	} {
		if n := bytes.Count(js, []byte(e.old)); n != 1 {
			t.Fatalf("the recorded pod holds %s %d times, want once", e.old, n)
		}
		js = bytes.Replace(js, []byte(e.old), []byte(e.new), 1)
	}
	return js
}

func special(i int, kind, s string) string { return fmt.Sprintf("%s%d[%s]", kind, i, s) }

func placeholder(i int, kind, s string) string { return special(i, kind, strings.Repeat("_", len(s))) }

// One pod, sent as JSON and as protobuf, is written the same bytes by both
// paths, with strings that JSON writers part ways on: as encoding/json writes
// the strings it decodes from the server's JSON. The protobuf carries the
// specials as raw bytes, 0xff included, as the apiserver's protobuf does.
func TestPodWithSpecialsWrittenAlikeFromJSONAndProtobuf(t *testing.T) {
	serverJSON := podWithSpecials(t, special)
	enc := protoenc.New()
	pb, err := enc.Envelope(nil, podWithSpecials(t, placeholder))
	if err != nil {
		t.Fatalf("encode the pod as protobuf: %v", err)
	}
	for i, s := range specials {
		for _, kind := range []string{"k", "v", "a"} {
			from, to := []byte(placeholder(i, kind, s)), []byte(special(i, kind, s))
			if n := bytes.Count(pb, from); n != 1 {
				t.Fatalf("the protobuf holds %q %d times, want once", from, n)
			}
			pb = bytes.Replace(pb, from, to, 1)
		}
	}
	u, err := protowire.ParseEnvelope(pb, 0)
	if err != nil {
		t.Fatal(err)
	}

	// The transcoder writes what the apiserver writes.
	var tc protowire.Transcoder
	transcoded, err := tc.Object(u)
	if err != nil {
		t.Fatalf("transcode: %v", err)
	}
	if !bytes.Equal(transcoded, serverJSON) {
		t.Fatalf("the transcoded pod differs from the server's JSON:\ngot  %s\nwant %s", transcoded, serverJSON)
	}

	fromJSON, err := DecodePod(serverJSON)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	fromProtobuf, err := DecodePodProtobuf(meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}, u.Raw)
	if err != nil {
		t.Fatalf("DecodePodProtobuf: %v", err)
	}
	a, _ := fromJSON.MarshalJSON()
	b, _ := fromProtobuf.MarshalJSON()
	if !bytes.Equal(a, b) {
		t.Fatalf("the pod read from JSON writes\n%s\nthe pod read from protobuf writes\n%s", a, b)
	}

	// The annotations, read, are written as encoding/json writes what it
	// reads of the server's JSON (0xff arrives as \ufffd, a U+FFFD); the
	// args, kept, as encoding/json wrote the server's strings.
	var server struct {
		Metadata struct{ Annotations map[string]string }
	}
	if err := json.Unmarshal(serverJSON, &server); err != nil {
		t.Fatal(err)
	}
	annotations, _ := json.Marshal(server.Metadata.Annotations)
	var sent []string
	for i, s := range specials {
		sent = append(sent, special(i, "a", s))
	}
	args, _ := json.Marshal(sent)
	for _, want := range []string{`"annotations":` + string(annotations), `"args":` + string(args)} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the pod written holds no\n%s\nwritten:\n%s", want, a)
		}
	}
}
