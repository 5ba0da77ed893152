package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest/wire"
)

// protobufWire serves the protobuf bytes the real apiserver sent in the
// bundled lifecycle-protobuf recording: its first list, then its first
// watch's frames, the watch held open after them.
func protobufWire(t *testing.T) (*httptest.Server, *fixture.Recording) {
	t.Helper()
	rec, err := fixture.Load("../../testdata/fixtures/lifecycle-protobuf")
	if err != nil {
		t.Fatal(err)
	}
	answer := func(w http.ResponseWriter, r *http.Request, ex *fixture.Exchange) {
		for k, v := range ex.Response.Headers {
			w.Header().Set(k, v)
		}
		for _, c := range ex.Response.Chunks {
			w.Write(c.Data)
		}
		w.(http.Flusher).Flush()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/vnd.kubernetes.protobuf" {
			http.Error(w, "this test's server speaks protobuf only", http.StatusNotAcceptable)
			return
		}
		if r.URL.Query().Get("watch") != "true" {
			answer(w, r, &rec.Exchanges[0])
			return
		}
		answer(w, r, &rec.Exchanges[1])
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// podwatch record --content-type protobuf keeps the protobuf wire as it
// came, and the recording replays to a JSON client as the live watch ran.
func TestRecordProtobufThenReplay(t *testing.T) {
	clitest.Isolate(t)
	srv, sent := protobufWire(t)
	dir := t.TempDir()
	watch := []string{"--node", "node-a", "--watch-list=false", "--max-events", "3"}
	live := mustRun(t, append([]string{"record", "--out", dir, "--content-type", "protobuf", "--server", srv.URL}, watch...)...)
	if live.stdout == "" {
		t.Fatalf("the live watch printed nothing; stderr:\n%s", live.stderr)
	}
	rec, data := loadFixture(t, dir)
	if !bytes.Contains(data, []byte(`"version": 2`)) || !bytes.Contains(data, []byte(`"base64": "azhzAAo`)) {
		t.Fatalf("the file is not version 2 with base64 reads of the protobuf list (k8s\\x00...):\n%.600s", data)
	}
	if len(rec.Exchanges) != 2 {
		t.Fatalf("recorded %d exchanges, want the list and the watch", len(rec.Exchanges))
	}
	for i, ex := range rec.Exchanges {
		if got, want := recordedBody(ex), recordedBody(sent.Exchanges[i]); !bytes.HasPrefix(want, got) || len(got) == 0 {
			t.Errorf("exchange %d: recorded %d bytes that are not the %d sent, or a start of them", i, len(got), len(want))
		}
		if ex.Response.Format() != wire.Protobuf || ex.Request.Headers["Accept"] != "application/vnd.kubernetes.protobuf" {
			t.Errorf("exchange %d: asked %q, answered %q; want protobuf", i, ex.Request.Headers["Accept"], ex.Response.ContentType())
		}
	}
	if !bytes.Equal(recordedBody(rec.Exchanges[0]), recordedBody(sent.Exchanges[0])) {
		t.Errorf("the recorded list is not the list sent")
	}
	replayed := mustRun(t, append([]string{"watch", "--replay", dir, "--speed", "0"}, watch...)...)
	if replayed.stdout != live.stdout {
		t.Fatalf("replay printed\n%s\nthe live watch printed\n%s", replayed.stdout, live.stdout)
	}
	// The replay answers each client in the form it asks for, whatever the
	// recording holds: a protobuf client of this protobuf recording, and a
	// JSON one above, print what the live watch printed.
	asProtobuf := mustRun(t, append([]string{"watch", "--replay", dir, "--speed", "0", "--content-type", "protobuf"}, watch...)...)
	if asProtobuf.stdout != live.stdout {
		t.Fatalf("replay to a protobuf client printed\n%s\nthe live watch printed\n%s", asProtobuf.stdout, live.stdout)
	}
}

func recordedBody(ex fixture.Exchange) []byte {
	var b bytes.Buffer
	for _, c := range ex.Response.Chunks {
		b.Write(c.Data)
	}
	return b.Bytes()
}
