package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/wire"
)

// cborWire serves the CBOR watch list the real apiserver sent (with its
// CBORServingAndStorage gate on) for node-a, each item written and flushed
// on its own, the watch held open after them. It answers CBOR clients only.
func cborWire(t *testing.T) (*httptest.Server, []byte) {
	t.Helper()
	sent, err := os.ReadFile("../../rest/cborwire/testdata/watch.cborseq")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/cbor" || r.URL.Query().Get("watch") != "true" {
			http.Error(w, "this test's server speaks a CBOR watch list only", http.StatusNotAcceptable)
			return
		}
		w.Header().Set("Content-Type", "application/cbor-seq")
		in := stream.NewReader(bytes.NewReader(sent), len(sent)+1)
		var f cborwire.Framer
		for {
			item, _, err := in.Next(&f)
			if err != nil {
				break
			}
			w.Write(item)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, sent
}

// podwatch record --content-type cbor keeps the CBOR wire as it came, and
// the recording replays to JSON, protobuf and CBOR clients as the live
// watch ran.
func TestRecordCBORThenReplay(t *testing.T) {
	clitest.Isolate(t)
	srv, sent := cborWire(t)
	dir := t.TempDir()
	watch := []string{"--node", "node-a", "--max-events", "4"}
	live := mustRun(t, append([]string{"record", "--out", dir, "--content-type", "cbor", "--server", srv.URL}, watch...)...)
	if live.stdout == "" {
		t.Fatalf("the live watch printed nothing; stderr:\n%s", live.stderr)
	}
	rec, data := loadFixture(t, dir)
	// d9 d9 f7, the self-describe tag, is "2dn3" in base64.
	if !bytes.Contains(data, []byte(`"version": 2`)) || !bytes.Contains(data, []byte(`"base64": "2dn3`)) {
		t.Fatalf("the file is not version 2 with base64 reads of the CBOR items:\n%.600s", data)
	}
	if len(rec.Exchanges) != 1 {
		t.Fatalf("recorded %d exchanges, want the watch list", len(rec.Exchanges))
	}
	ex := rec.Exchanges[0]
	if got := recordedBody(ex); !bytes.HasPrefix(sent, got) || !bytes.HasPrefix(got, []byte{0xd9, 0xd9, 0xf7}) {
		t.Errorf("recorded %d bytes that are not a start of the %d sent", len(got), len(sent))
	}
	if ex.Response.Format() != wire.CBOR || ex.Request.Headers["Accept"] != "application/cbor" {
		t.Errorf("asked %q, answered %q; want CBOR", ex.Request.Headers["Accept"], ex.Response.ContentType())
	}
	replayed := mustRun(t, append([]string{"watch", "--replay", dir, "--speed", "0"}, watch...)...)
	if replayed.stdout != live.stdout {
		t.Fatalf("replay to a JSON client printed\n%s\nthe live watch printed\n%s", replayed.stdout, live.stdout)
	}
	// Protobuf and CBOR clients print what the live watch printed, ops
	// included: the live items' members come in an order that changes from
	// item to item, and the transcoder writes them in one order, so a
	// status-only change is a RECONCILE whatever the format.
	for _, ct := range []string{"protobuf", "cbor"} {
		other := mustRun(t, append([]string{"watch", "--replay", dir, "--speed", "0", "--content-type", ct}, watch...)...)
		if other.stdout != live.stdout {
			t.Fatalf("replay to a %s client printed\n%s\nthe live watch printed\n%s", ct, other.stdout, live.stdout)
		}
	}
	// The replay serves the recorded items' JSON: each event transcoded.
	view, err := rec.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(view.Exchanges[0].Response.Chunks); n < 4 {
		t.Fatalf("the JSON view holds %d events, want the 4 the watch printed at least", n)
	}
	var f cborwire.Framer
	item, _, err := stream.NewReader(bytes.NewReader(sent), len(sent)+1).Next(&f)
	if err != nil {
		t.Fatal(err)
	}
	var tc cborwire.Transcoder
	first, err := tc.JSON(item, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(view.Exchanges[0].Response.Chunks[0].Data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(first, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the first event served is not the first item's JSON (-item +served):\n%.2000s", d)
	}
}
