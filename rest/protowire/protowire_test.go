package protowire

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/podwatch/podwatch/internal/protoenc"
)

func varint(b []byte, x uint64) []byte { return protoenc.AppendVarint(b, x) }

func bytesField(num int, v []byte) []byte { return protoenc.AppendBytesField(nil, num, v) }

func varintField(num int, v uint64) []byte { return protoenc.AppendVarintField(nil, num, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func envelope(apiVersion, kind string, raw []byte) []byte {
	return protoenc.AppendEnvelope(nil, apiVersion, kind, raw)
}

func TestTranscodeForms(t *testing.T) {
	meta := cat(
		bytesField(1, []byte("web")),
		bytesField(8, cat(varintField(1, 1764758400), varintField(2, 5))), // creationTimestamp
		bytesField(11, cat(bytesField(1, []byte("b")), bytesField(2, []byte("2")))),
		bytesField(11, cat(bytesField(1, []byte("a")), bytesField(2, []byte("1")))),
	)
	container := cat(
		bytesField(1, []byte("main")),
		bytesField(8, cat( // resources
			bytesField(1, cat(bytesField(1, []byte("cpu")), bytesField(2, bytesField(1, []byte("100m"))))),
		)),
	)
	spec := cat(bytesField(2, container), bytesField(10, []byte("node-a")))
	pod := cat(bytesField(1, meta), bytesField(2, spec))
	var tc Transcoder
	u, err := ParseEnvelope(envelope("v1", "Pod", pod), 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","creationTimestamp":"2025-12-03T10:40:00Z","labels":{"a":"1","b":"2"}},` +
		`"spec":{"containers":[{"name":"main","resources":{"limits":{"cpu":"100m"}}}],"nodeName":"node-a"},"status":{}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestEnvelopeErrors(t *testing.T) {
	_, err := ParseEnvelope([]byte("{\"kind\":1}"), 7)
	var me *MagicError
	if !errors.As(err, &me) || me.Offset != 7 {
		t.Errorf("JSON body: got %v, want a *MagicError at 7", err)
	}
	// A field whose length runs past the message.
	bad := cat(Magic, varint(nil, 1<<3|wireBytes), varint(nil, 100), []byte("v1"))
	_, err = ParseEnvelope(bad, 0)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 5 {
		t.Errorf("overlong field: got %v, want a *SyntaxError at 5 (the length)", err)
	}
	var tc Transcoder
	_, err = tc.Object(&Unknown{APIVersion: "v1", Kind: "Secret"})
	var ke *KindError
	if !errors.As(err, &ke) {
		t.Errorf("unknown kind: got %v, want a *KindError", err)
	}
}

// TestFormLayouts checks that the fields the generator found for each form
// are those the transcoder reads by number.
func TestFormLayouts(t *testing.T) {
	want := map[form][]kind{
		formTime:        {kindInt64, kindInt32},
		formQuantity:    {kindString},
		formIntOrString: {kindInt64, kindInt32, kindString},
		formRawJSON:     {kindBytes},
	}
	seen := map[form]bool{}
	for _, m := range messages {
		k, ok := want[m.form]
		if !ok {
			continue
		}
		seen[m.form] = true
		for i, f := range m.fields {
			if int(f.num) != i+1 || i >= len(k) || f.kind != k[i] {
				t.Errorf("%s: field %d is %d/%d, want number %d of kind %v", m.name, i, f.num, f.kind, i+1, k)
			}
		}
	}
	for f := range want {
		if !seen[f] {
			t.Errorf("no message of form %d in the schema", f)
		}
	}
}

func FuzzTranscode(f *testing.F) {
	f.Add(envelope("v1", "Pod", cat(bytesField(1, bytesField(1, []byte("web"))))))
	f.Add(envelope("v1", "Status", cat(bytesField(3, []byte("gone")), varintField(6, 410))))
	f.Add(envelope("v1", "PodList", bytesField(2, bytesField(1, bytesField(1, []byte("a"))))))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseEnvelope(b, 0)
		if err != nil {
			return
		}
		var tc Transcoder
		out, err := tc.Object(u)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("transcoded to invalid JSON: %s", out)
		}
	})
}

func FuzzParseWatchEvent(f *testing.F) {
	f.Add(cat(bytesField(1, []byte("ADDED")), bytesField(2, bytesField(1, envelope("v1", "Pod", nil)))))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseWatchEvent(b, 0)
		if err != nil {
			return
		}
		if ev.HasObject && len(ev.Object) > len(b) {
			t.Fatalf("object longer than the frame")
		}
	})
}

// TestRecordedPod transcodes the recorded pod (testdata/pod.json's pod
// created in a real v1.37.2 apiserver, fetched in both content types by
// internal/e2e with -update-protobuf-testdata) and compares the result with
// the server's own JSON, byte for byte: member order, omitted members,
// timestamps, quantities, int-or-strings and managedFields all as it writes
// them.
func TestRecordedPod(t *testing.T) {
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	u, err := ParseEnvelope(pb, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tc Transcoder
	got, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.TrimSuffix(js, []byte("\n")); !bytes.Equal(got, want) {
		t.Errorf("transcoded pod differs from the server's JSON:\ngot  %s\nwant %s", got, want)
	}
}

func FuzzRecordedPod(f *testing.F) {
	if pb, err := os.ReadFile("testdata/pod.pb"); err == nil {
		f.Add(pb)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseEnvelope(b, 0)
		if err != nil {
			return
		}
		var tc Transcoder
		if out, err := tc.Object(u); err == nil && !json.Valid(out) {
			t.Fatalf("transcoded to invalid JSON: %s", out)
		}
	})
}

func TestFormWireTypes(t *testing.T) {
	// A creationTimestamp whose seconds are length-delimited.
	meta := bytesField(8, bytesField(1, []byte("x")))
	var tc Transcoder
	_, err := tc.Object(&Unknown{APIVersion: "v1", Kind: "Pod", Raw: bytesField(1, meta)})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SyntaxError", err)
	}
}

// TestTranscodeBounded: a frame of empty containers, two bytes each, would
// transcode to far more JSON than the frame; Limit stops it.
func TestTranscodeBounded(t *testing.T) {
	var spec []byte
	for range 10000 {
		spec = append(spec, bytesField(2, nil)...)
	}
	u := &Unknown{APIVersion: "v1", Kind: "Pod", Raw: bytesField(2, spec)}
	tc := Transcoder{Limit: 4 * len(spec)}
	_, err := tc.Object(u)
	var te *TooLargeError
	if !errors.As(err, &te) || te.Limit != 4*len(spec) {
		t.Fatalf("got %v, want a *TooLargeError", err)
	}
	if n := len(tc.w.Bytes()); n > 5*len(spec) {
		t.Errorf("wrote %d bytes before stopping, limit %d", n, 4*len(spec))
	}
}
