package apiwire

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// recorded is internal/docs' recording of a real v1.37.2 apiserver's
// protobuf answers (internal/e2e records it).
const recorded = "../docs/testdata/protobuf"

func readRecorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recorded, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRespondAsTheRecordedApiserver: each answer of the recording, read as
// the JSON the apiserver would have sent, goes through Respond to a
// protobuf client as the very bytes the apiserver sent; and podwatch's own
// 410 ERROR event and watch-list bookmark, at the recording's
// resourceVersions, are the apiserver's frames.
func TestRespondAsTheRecordedApiserver(t *testing.T) {
	var tc protowire.Transcoder
	asJSON := func(envelope []byte) []byte {
		t.Helper()
		u, err := protowire.ParseEnvelope(envelope, 0)
		if err != nil {
			t.Fatal(err)
		}
		js, err := tc.Object(u)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Clone(js)
	}
	for _, c := range []struct {
		file, target string
		code         int
	}{
		{"list.bin", "/api/v1/namespaces/pb-wire/pods", http.StatusOK},
		{"notfound.bin", "/api/v1/namespaces/pb-wire/pods", http.StatusNotFound},
	} {
		want := readRecorded(t, c.file)
		rec := serve(t, c.target, kubeletAccept, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", wire.ContentTypeJSON)
			w.WriteHeader(c.code)
			w.Write(append(asJSON(want), '\n'))
		})
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("%s: podwatch writes\n%q\nthe apiserver wrote\n%q", c.file, rec.Body.Bytes(), want)
		}
	}

	// The watch list: every frame, the initial-events-end bookmark podwatch's own.
	stream := readRecorded(t, "watch-list.bin")
	frames := splitFrames(t, stream)
	var events []byte
	bookmarks := 0
	for _, f := range frames {
		ev, err := protowire.ParseWatchEvent(f[4:], 4)
		if err != nil {
			t.Fatal(err)
		}
		obj := asJSON(ev.Object)
		if ev.Type == Bookmark && bytes.Contains(obj, []byte(InitialEventsEnd)) {
			obj = PodBookmark(bookmarkRV(t, obj), true)
			bookmarks++
		}
		events = AppendEvent(events, ev.Type, obj)
	}
	if bookmarks != 1 {
		t.Fatalf("the recording's watch list holds %d initial-events-end bookmarks, want 1", bookmarks)
	}
	got := serve(t, "/api/v1/namespaces/pb-wire/pods?watch=true", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeJSON)
		w.Write(events)
	}).Body.Bytes()
	gotFrames := splitFrames(t, got)
	if len(gotFrames) != len(frames) {
		t.Errorf("%d frames, the apiserver sent %d", len(gotFrames), len(frames))
	}
	for i, f := range gotFrames {
		if i >= len(frames) || !bytes.Equal(f, frames[i]) {
			t.Errorf("watch-list frame %d: podwatch writes\n%q\nthe apiserver wrote\n%q", i, f, frames[min(i, len(frames)-1)])
		}
	}

	// The 410: an ERROR event carrying the Status envelope.
	want := readRecorded(t, "gone.bin")
	got = serve(t, "/api/v1/namespaces/pb-wire/pods?watch=true", kubeletAccept, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", wire.ContentTypeJSON)
		w.Write(ErrorEvent(Gone("too old resource version: 215 (219)")))
	}).Body.Bytes()
	if !bytes.Equal(got, want) {
		t.Errorf("410 ERROR event: podwatch writes\n%q\nthe apiserver wrote\n%q", got, want)
	}
}

// splitFrames cuts a protobuf watch body into its frames, length prefixes
// kept.
func splitFrames(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 4 || int(binary.BigEndian.Uint32(b)) > len(b)-4 {
			t.Fatalf("truncated frame %q", b)
		}
		n := 4 + int(binary.BigEndian.Uint32(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func bookmarkRV(t *testing.T, obj []byte) string {
	t.Helper()
	const key = `"resourceVersion":"`
	i := bytes.Index(obj, []byte(key))
	if i < 0 {
		t.Fatalf("bookmark without a resourceVersion: %s", obj)
	}
	rest := obj[i+len(key):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}
