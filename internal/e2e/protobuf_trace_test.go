package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

var updateProtocolWire = flag.Bool("update-protocol-wire", false,
	"write the protobuf wire recorded by TestProtobufTrace to internal/docs/testdata/protobuf, which docs/PROTOCOL.md quotes")

// TestProtobufTrace traces a protobuf watch of a real apiserver, and records
// the wire docs/PROTOCOL.md tells protobuf from; the recording comes last,
// as it restarts the apiserver.
func TestProtobufTrace(t *testing.T) {
	c, ctx := startCluster(t, 5*time.Minute)
	t.Run("the trace shows each frame", func(t *testing.T) { testProtobufTraceFrames(t, ctx, c) })
	t.Run("the wire PROTOCOL.md quotes", func(t *testing.T) { testProtobufWire(t, ctx, c) })
}

// testProtobufTraceFrames traces the same node's pods in JSON and in
// protobuf, through the same changes: the protobuf trace tells the list's
// envelope and item count and each watch frame with its length prefix and
// envelope, and both summaries give bytes per event, protobuf's fewer.
func testProtobufTraceFrames(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "pb-trace"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "before", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	runs := map[string]*tracedRun{}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeProtobuf} {
		cfg := clusterConfig(c, c.NodeToken)
		cfg.ContentType = ct
		runs[ct] = startTracedRun(t, ctx, tracedRunOptions{Rest: cfg})
	}
	for ct, r := range runs {
		if !poll(ctx, func() bool { return len(r.pushes.all()) > 0 }) {
			t.Fatalf("%s: no first push within %s", ct, wait)
		}
	}
	rv, err := c.CreatePod(ctx, ns, "after", node, map[string]string{"v": "1"})
	if err == nil {
		rv, err = c.UpdatePodLabels(ctx, ns, "after", map[string]string{"v": "2"})
	}
	if err == nil {
		rv, err = c.DeletePod(ctx, ns, "after", &zero)
	}
	if err != nil {
		t.Fatalf("change pods: %v", err)
	}
	stops := map[string]trace.Stop{}
	for ct, r := range runs {
		if !poll(ctx, func() bool { return r.pushes.reached(rv) }) {
			t.Fatalf("%s: never pushed rv %s", ct, rv)
		}
		stops[ct] = r.stop(t)
	}

	var frames int
	var list *trace.Envelope
	for _, s := range runs[wire.ContentTypeProtobuf].steps(t) {
		switch {
		case s.Event != nil:
			e := s.Event
			if e.Error != "" || e.Prefix == nil || e.Envelope == nil {
				t.Fatalf("a protobuf event told without its frame: %+v", e)
			}
			if int(e.Prefix.Length) != e.Bytes-protowire.FrameHeader || e.Envelope.APIVersion != "v1" || e.Envelope.Kind != "Pod" ||
				e.Envelope.ContentEncoding != "" || e.Envelope.ContentType != "" || e.Envelope.ObjectBytes <= 0 || e.Envelope.ObjectBytes >= e.Bytes {
				t.Errorf("frame told wrong: prefix %+v envelope %+v, %d bytes", e.Prefix, e.Envelope, e.Bytes)
			}
			frames++
		case s.BodyEnd != nil && s.BodyEnd.Envelope != nil:
			list = s.BodyEnd.Envelope
		}
	}
	if frames < 4 {
		t.Errorf("%d frames told, want one per change at least (ADDED, MODIFIED twice, DELETED)", frames)
	}
	if list == nil || list.Kind != "PodList" || list.Items == nil || *list.Items != 1 {
		t.Errorf("the list's envelope: got %+v, want a PodList of 1 item", list)
	}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeProtobuf} {
		st := stops[ct]
		if st.Events == 0 || st.WatchBytes == 0 || math.Abs(st.BytesPerEvent-float64(st.WatchBytes)/float64(st.Events)) > 0.05 {
			t.Errorf("%s summary: %d watch bytes, %d events, %v bytes per event", ct, st.WatchBytes, st.Events, st.BytesPerEvent)
		}
	}
	j, p := stops[wire.ContentTypeJSON], stops[wire.ContentTypeProtobuf]
	t.Logf("bytes per event: JSON %.1f (%d bytes, %d events), protobuf %.1f (%d bytes, %d events)",
		j.BytesPerEvent, j.WatchBytes, j.Events, p.BytesPerEvent, p.WatchBytes, p.Events)
	if p.BytesPerEvent >= j.BytesPerEvent {
		t.Errorf("protobuf %.1f bytes per event, JSON %.1f: want protobuf's fewer", p.BytesPerEvent, j.BytesPerEvent)
	}
}

// testProtobufWire records, from the real apiserver, the protobuf wire that
// docs/PROTOCOL.md tells from (with -update-protocol-wire it writes it to
// internal/docs/testdata/protobuf, where the doc's snippets are checked):
// a list, a watch list to its closing bookmark and one change, a 404, and
// after a compaction and a restart the ERROR frame of a 410. It checks the
// facts the doc relies on, whether or not it writes.
func testProtobufWire(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "pb-wire"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	rec := wireRecording{}
	path := "/api/v1/namespaces/" + ns + "/pods"

	list := rec.get(t, ctx, c, "list.bin", path, http.StatusOK)
	u, err := protowire.ParseEnvelope(list, 0)
	if err != nil {
		t.Fatalf("list envelope: %v", err)
	}
	if n, err := protowire.Items(u); err != nil || u.Kind != "PodList" || n != 1 {
		t.Fatalf("list: %s of %d items (%v), want a PodList of 1", u.Kind, n, err)
	}
	rec.get(t, ctx, c, "notfound.bin", path+"/missing", http.StatusNotFound)

	// A watch list: its initial ADDED, the bookmark that ends it, then a
	// change.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, frames := rec.watch(t, wctx, c, "watch-list.bin", path+"?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true")
	first := frames.next(t)
	end := frames.next(t)
	if first.Type != "ADDED" || end.Type != "BOOKMARK" || !bytes.Contains(end.Object, []byte("k8s.io/initial-events-end")) {
		t.Fatalf("watch list began %s, %s; want ADDED then the initial-events-end BOOKMARK", first.Type, end.Type)
	}
	if _, err := c.UpdatePodLabels(ctx, ns, "web", map[string]string{"app": "web", "v": "2"}); err != nil {
		t.Fatalf("relabel: %v", err)
	}
	if ev := frames.next(t); ev.Type != "MODIFIED" {
		t.Fatalf("after the relabel: %s, want MODIFIED", ev.Type)
	}
	rec.keep("watch-list.bin", frames.read())
	cancel()
	body.Close()

	// A 410: a watch from before a compaction, once the apiserver restarted
	// and its watch cache begins after it.
	oldRV := listRV(t, u)
	if _, err := c.CreatePod(ctx, ns, "later", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	if _, err := c.CompactEtcd(ctx); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	body, frames = rec.watch(t, ctx, c, "gone.bin", path+"?resourceVersion="+oldRV+"&watch=true")
	defer body.Close()
	gone := frames.next(t)
	st, err := protowire.ParseEnvelope(gone.Object, 0)
	if gone.Type != "ERROR" || err != nil || st.Kind != "Status" || !bytes.Contains(st.Raw, []byte("Expired")) {
		t.Fatalf("a watch from rv %s after the restart: %s %v %+v, want an ERROR holding an Expired Status", oldRV, gone.Type, err, st)
	}
	rec.keep("gone.bin", frames.read())
	if *updateProtocolWire {
		rec.write(t, filepath.Join("..", "docs", "testdata", "protobuf"))
	}
}

// listRV is the resourceVersion in a PodList envelope's metadata.
func listRV(t *testing.T, u *protowire.Unknown) string {
	t.Helper()
	var tc protowire.Transcoder
	js, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := json.Unmarshal(js, &l); err != nil || l.Metadata.ResourceVersion == "" {
		t.Fatalf("list without a resourceVersion: %v %s", err, js)
	}
	return l.Metadata.ResourceVersion
}

// wireRecording holds bodies as the server sent them, and what was asked.
type wireRecording struct {
	files map[string][]byte
	meta  map[string]wireMeta
}

// wireMeta is what internal/docs/testdata/protobuf/meta.json says of each
// recorded body.
type wireMeta struct {
	Request     string `json:"request"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
}

func (w *wireRecording) note(name, path string, resp *http.Response) {
	if w.meta == nil {
		w.files, w.meta = map[string][]byte{}, map[string]wireMeta{}
	}
	w.meta[name] = wireMeta{Request: "GET " + path, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
}

func (w *wireRecording) keep(name string, b []byte) { w.files[name] = bytes.Clone(b) }

func (w *wireRecording) request(t *testing.T, ctx context.Context, c *cluster.Cluster, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The kubelet's Accept header.
	req.Header.Set("Accept", wire.ContentTypeProtobuf+","+wire.ContentTypeJSON)
	resp, err := c.Client(c.AdminToken).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}

func (w *wireRecording) get(t *testing.T, ctx context.Context, c *cluster.Cluster, name, path string, status int) []byte {
	t.Helper()
	resp := w.request(t, ctx, c, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != status || resp.Header.Get("Content-Type") != wire.ContentTypeProtobuf {
		t.Fatalf("GET %s: %d %q %v, want %d in protobuf", path, resp.StatusCode, resp.Header.Get("Content-Type"), err, status)
	}
	w.note(name, path, resp)
	w.keep(name, b)
	return b
}

func (w *wireRecording) watch(t *testing.T, ctx context.Context, c *cluster.Cluster, name, path string) (io.ReadCloser, *frameTap) {
	t.Helper()
	resp := w.request(t, ctx, c, path)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wire.ContentTypeProtobuf+";stream=watch" {
		resp.Body.Close()
		t.Fatalf("watch %s: %d %q, want a protobuf watch", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	w.note(name, path, resp)
	tap := &frameTap{}
	tap.in = stream.NewReader(io.TeeReader(resp.Body, &tap.raw), 16<<20)
	return resp.Body, tap
}

// frameTap reads a watch's frames and keeps the bytes of those read whole.
type frameTap struct {
	in   *stream.Reader
	f    protowire.Framer
	raw  bytes.Buffer // every byte read from the body
	used int64        // how many of them the frames read so far span
}

func (f *frameTap) next(t *testing.T) protowire.WatchEvent {
	t.Helper()
	frame, off, err := f.in.Next(&f.f)
	if err != nil {
		t.Fatalf("frame at %d: %v", off, err)
	}
	ev, err := protowire.ParseWatchEvent(frame[protowire.FrameHeader:], 0)
	if err != nil {
		t.Fatalf("frame at %d: %v", off, err)
	}
	f.used = f.in.Offset()
	ev.Object = bytes.Clone(ev.Object)
	return ev
}

func (f *frameTap) read() []byte { return f.raw.Bytes()[:f.used] }

func (w *wireRecording) write(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range w.files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta, err := json.MarshalIndent(w.meta, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), append(meta, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
