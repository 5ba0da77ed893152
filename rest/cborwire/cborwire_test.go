package cborwire_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/rest/cborwire"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func asJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// TestRecordedPod transcodes the pod the real apiserver sent in CBOR and
// compares it with the same pod it sent in JSON.
func TestRecordedPod(t *testing.T) {
	var tc cborwire.Transcoder
	got, err := tc.JSON(read(t, "pod.cbor"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(asJSON(t, read(t, "pod.json")), asJSON(t, got)); d != "" {
		t.Errorf("transcoded CBOR differs from the JSON answer (-json +cbor):\n%s", d)
	}
}

// TestEncodeRoundTrip encodes JSON and reads it back, and checks the
// encoding with fxamacker's decoder too.
func TestEncodeRoundTrip(t *testing.T) {
	for name, js := range map[string][]byte{
		"pod":     read(t, "pod.json"),
		"scalars": []byte(`{"a":[1,-2,-9223372036854775808,18446744073709551615,1.5,0.1,1e-7,1e300,true,false,null,"x<&>\u2028"],"b":{}}`),
	} {
		t.Run(name, func(t *testing.T) {
			item, err := cborenc.EncodeJSON(js)
			if err != nil {
				t.Fatal(err)
			}
			if string(item[:3]) != "\xd9\xd9\xf7" {
				t.Fatalf("item starts % x, want the self-describe tag", item[:3])
			}
			var tc cborwire.Transcoder
			back, err := tc.JSON(item, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(asJSON(t, js), asJSON(t, back)); d != "" {
				t.Errorf("round trip (-json +back):\n%s", d)
			}
			if err := cbor.Wellformed(item); err != nil {
				t.Errorf("fxamacker: not well-formed: %v", err)
			}
		})
	}
}

func TestEncodeEvent(t *testing.T) {
	item, err := cborenc.EncodeEvent("ADDED", []byte(`{"kind":"Pod"}`))
	if err != nil {
		t.Fatal(err)
	}
	var tc cborwire.Transcoder
	got, err := tc.JSON(item, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(asJSON(t, []byte(`{"type":"ADDED","object":{"kind":"Pod"}}`)), asJSON(t, got)); d != "" {
		t.Errorf("event (-want +got):\n%s", d)
	}
}

func TestTranscodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		item []byte
		off  int64
	}{
		{"truncated string", []byte{0x45, 'a', 'b'}, 0},
		{"indefinite map", []byte{0xbf, 0xff}, 0},
		{"unknown tag", []byte{0xa1, 0x41, 'a', 0xc1, 0x01}, 3},
		{"integer key", []byte{0xa1, 0x01, 0x01}, 1},
		{"undefined", []byte{0xf7}, 0},
		{"NaN", []byte{0xf9, 0x7e, 0x00}, 0},
		{"bytes after", []byte{0x01, 0x02}, 1},
		{"huge array", []byte{0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr cborwire.Transcoder
			_, err := tr.JSON(tc.item, 100)
			var se *cborwire.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if se.Offset != 100+tc.off {
				t.Errorf("offset %d, want %d", se.Offset, 100+tc.off)
			}
		})
	}
}

func TestTranscodeLimit(t *testing.T) {
	tr := cborwire.Transcoder{Limit: 100}
	_, err := tr.JSON(read(t, "pod.cbor"), 0)
	var tl *cborwire.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want a *TooLargeError", err)
	}
}

// FuzzTranscode: any bytes transcode to valid JSON or a typed error, and
// what transcodes survives encoding back to CBOR and transcoding again.
func FuzzTranscode(f *testing.F) {
	f.Add(read(f, "pod.cbor"))
	for _, seed := range [][]byte{{0x01}, {0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0xf9, 0x3c, 0x00}, {0xd6, 0x43, 1, 2, 3}, {0xa1, 0x61, 'a', 0xf6}, {0xbf}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		tc := cborwire.Transcoder{Limit: 1 << 20}
		js, err := tc.JSON(item, 7)
		if err != nil {
			var se *cborwire.SyntaxError
			var tl *cborwire.TooLargeError
			if !errors.As(err, &se) && !errors.As(err, &tl) {
				t.Fatalf("got %v (%T), want a typed error", err, err)
			}
			if se != nil && (se.Offset < 7 || se.Offset > 7+int64(len(item))) {
				t.Fatalf("offset %d outside the item [7, %d]", se.Offset, 7+len(item))
			}
			return
		}
		if !json.Valid(js) {
			t.Fatalf("not JSON: %s", js)
		}
		again, err := cborenc.EncodeJSON(js)
		if err != nil {
			t.Fatalf("encode %s: %v", js, err)
		}
		var tc2 cborwire.Transcoder
		back, err := tc2.JSON(again, 0)
		if err != nil {
			t.Fatalf("transcode the re-encoded %s: %v", js, err)
		}
		if d := cmp.Diff(asJSON(t, js), asJSON(t, back)); d != "" {
			t.Fatalf("re-encoding changed the value (-first +second):\n%s", d)
		}
	})
}

// AppendEvent's byte strings take each header size, as fxamacker reads them.
func TestAppendEventStringSizes(t *testing.T) {
	for _, n := range []int{0, 23, 24, 255, 256, 65535, 65536} {
		typ := strings.Repeat("T", n)
		item := cborenc.AppendEvent(nil, typ, []byte{0xf6})
		var got map[string]any
		dm, _ := cbor.DecOptions{DefaultByteStringType: reflect.TypeOf(""), ByteStringToString: cbor.ByteStringToStringAllowed}.DecMode()
		if err := dm.Unmarshal(item, &got); err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		if got["type"] != typ || got["object"] != nil || len(got) != 2 {
			t.Fatalf("%d: got type of %d bytes, object %v", n, len(got["type"].(string)), got["object"])
		}
	}
}

// Strings, byte or text, keys or values, are written as encoding/json writes
// a Go string of their bytes, on the strings JSON writers part ways on.
func TestTranscodeStringsAsEncodingJSON(t *testing.T) {
	// str is a CBOR string of major type major (2 bytes, 3 text) holding s.
	str := func(major byte, s string) []byte {
		if len(s) >= 24 {
			t.Fatalf("%q is too long for a one-byte head", s)
		}
		return append([]byte{major<<5 | byte(len(s))}, s...)
	}
	for _, s := range []string{"a<b>&c", "\u2028", "\u2029", "\xff", "a\xe2\x80", "\x00\x1f\t", "\x7f", `"q"\`, "é☃"} {
		want, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		for _, major := range []byte{2, 3} {
			item := append(append([]byte{0xa1}, str(major, s)...), str(major, s)...)
			var tc cborwire.Transcoder
			got, err := tc.JSON(item, 0)
			if err != nil {
				t.Fatalf("transcode %q: %v", s, err)
			}
			if string(got) != string(want) {
				t.Errorf("major type %d %q: got %s, encoding/json writes %s", major, s, got, want)
			}
		}
	}
}
