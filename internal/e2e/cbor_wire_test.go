package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/stream"
	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/wire"
)

var updateCBORWire = flag.Bool("update-cbor-wire", false,
	"write the CBOR wire recorded by TestCBORWire (and the gate-off 406 of TestProtobuf) to internal/docs/testdata/cbor, which docs/PROTOCOL.md quotes")

// cborWireDir is where docs/PROTOCOL.md's CBOR snippets are checked.
var cborWireDir = filepath.Join("..", "docs", "testdata", "cbor")

// TestCBORWire records, from a real apiserver with the CBORServingAndStorage
// gate on, the CBOR wire docs/PROTOCOL.md tells CBOR from (with
// -update-cbor-wire it writes it to internal/docs/testdata/cbor): a list, a
// watch list to its closing bookmark and one change, and a 404. It checks
// the facts the doc relies on, whether or not it writes.
//
// On the same apiserver, podwatch record --content-type cbor records a list
// and a watch, and the recording replays as the live watch ran.
func TestCBORWire(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{FeatureGates: map[string]bool{cborGate: true}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	t.Run("the wire PROTOCOL.md quotes", func(t *testing.T) { testCBORWireBytes(t, ctx, c) })
	t.Run("record --content-type cbor replays as it ran", func(t *testing.T) { testRecordCBOR(t, ctx, c) })
}

func testCBORWireBytes(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "cbor-wire"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	rec := wireRecording{}
	path := "/api/v1/namespaces/" + ns + "/pods"

	list := cborGet(t, ctx, c, &rec, "list.bin", path, wire.ContentTypeCBOR, http.StatusOK)
	checkCBORObject(t, "list", list, "PodList")
	notFound := cborGet(t, ctx, c, &rec, "notfound.bin", path+"/missing", wire.ContentTypeCBOR, http.StatusNotFound)
	checkCBORObject(t, "404", notFound, "Status")

	// The watch's own media type is not one a client may ask for.
	get(t, ctx, c, path+"?watch=true", wire.ContentTypeCBORSeq, http.StatusNotAcceptable)

	// A watch list: its initial ADDED, the bookmark that ends it, then a
	// change, each a self-described item with nothing between them.
	wctx, cancelWatch := context.WithCancel(ctx)
	defer cancelWatch()
	wpath := path + "?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
	resp := adminGet(t, wctx, c, wpath, wire.ContentTypeCBOR)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wire.ContentTypeCBORSeq {
		t.Fatalf("watch: %d %q, want 200 %s", resp.StatusCode, resp.Header.Get("Content-Type"), wire.ContentTypeCBORSeq)
	}
	rec.note("watch-list.bin", wpath, resp)
	tap := &itemTap{}
	tap.in = stream.NewReader(io.TeeReader(resp.Body, &tap.raw), 16<<20)
	first, end := tap.next(t), tap.next(t)
	if first.Type != "ADDED" || end.Type != "BOOKMARK" || !bytes.Contains(end.Object, []byte("k8s.io/initial-events-end")) {
		t.Fatalf("watch list began %s, %s; want ADDED then the initial-events-end BOOKMARK", first.Type, end.Type)
	}
	if _, err := c.UpdatePodLabels(ctx, ns, "web", map[string]string{"app": "web", "v": "2"}); err != nil {
		t.Fatalf("relabel: %v", err)
	}
	if ev := tap.next(t); ev.Type != "MODIFIED" {
		t.Fatalf("after the relabel: %s, want MODIFIED", ev.Type)
	}
	rec.keep("watch-list.bin", tap.read())
	if *updateCBORWire {
		writeCBORWire(t, &rec)
	}
}

// cborGet asks for path with accept, wants status, and keeps the answer as
// name.
func cborGet(t *testing.T, ctx context.Context, c *cluster.Cluster, rec *wireRecording, name, path, accept string, status int) []byte {
	t.Helper()
	resp := adminGet(t, ctx, c, path, accept)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != status {
		t.Fatalf("GET %s as %s: %d %v, want %d", path, accept, resp.StatusCode, err, status)
	}
	rec.note(name, path, resp)
	rec.keep(name, b)
	return b
}

// checkCBORObject checks what the doc says of an object: one item under
// the self-describe tag d9 d9 f7, a map whose keys are byte strings, that
// transcodes to JSON of the kind wanted.
func checkCBORObject(t *testing.T, what string, b []byte, kind string) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte{0xd9, 0xd9, 0xf7}) || len(b) < 5 {
		t.Fatalf("%s starts % x, want the self-describe tag", what, b[:min(len(b), 3)])
	}
	if h, ok, _ := cborwire.ParseHead(b[3:]); !ok || h.Major != cborwire.MajorMap {
		t.Fatalf("%s: % x after the tag, want a map", what, b[3:min(len(b), 6)])
	}
	m, _, _ := cborwire.ParseHead(b[3:])
	if k, ok, _ := cborwire.ParseHead(b[3+m.Size:]); !ok || k.Major != cborwire.MajorBytes {
		t.Fatalf("%s: its first key is major type %d, want a byte string (2)", what, k.Major)
	}
	var tc cborwire.Transcoder
	js, err := tc.JSON(b, 0)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var v struct{ Kind string }
	if err := json.Unmarshal(js, &v); err != nil || v.Kind != kind {
		t.Fatalf("%s: kind %q (%v), want %s", what, v.Kind, err, kind)
	}
}

// itemTap reads a CBOR watch's items and keeps the bytes of those read
// whole.
type itemTap struct {
	in   *stream.Reader
	f    cborwire.Framer
	tc   cborwire.Transcoder
	raw  bytes.Buffer
	used int64
}

type tappedEvent struct {
	Type   string
	Object json.RawMessage
}

func (it *itemTap) next(t *testing.T) tappedEvent {
	t.Helper()
	item, off, err := it.in.Next(&it.f)
	if err != nil {
		t.Fatalf("item at %d: %v", off, err)
	}
	if !bytes.HasPrefix(item, []byte{0xd9, 0xd9, 0xf7}) {
		t.Fatalf("item at %d starts % x, want the self-describe tag", off, item[:min(len(item), 3)])
	}
	js, err := it.tc.JSON(item, off)
	if err != nil {
		t.Fatalf("item at %d: %v", off, err)
	}
	var ev tappedEvent
	if err := json.Unmarshal(js, &ev); err != nil {
		t.Fatalf("item at %d: %v", off, err)
	}
	it.used = it.in.Offset()
	return ev
}

func (it *itemTap) read() []byte { return it.raw.Bytes()[:it.used] }

// writeCBORWire writes rec's bodies to cborWireDir and merges what was
// asked into its meta.json, which two tests (two apiservers, the gate on
// and off) write to.
func writeCBORWire(t *testing.T, rec *wireRecording) {
	t.Helper()
	if err := os.MkdirAll(cborWireDir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := map[string]wireMeta{}
	if old, err := os.ReadFile(filepath.Join(cborWireDir, "meta.json")); err == nil {
		if err := json.Unmarshal(old, &meta); err != nil {
			t.Fatal(err)
		}
	}
	maps.Copy(meta, rec.meta)
	merged := wireRecording{files: rec.files, meta: meta}
	merged.write(t, cborWireDir)
}

// testRecordCBOR records a CBOR list and watch of the node's pods through
// four changes with podwatch record, and replays the recording to a JSON
// client, which prints what the live watch printed.
func testRecordCBOR(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "cbor-rec"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "first", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	fixtureDir := filepath.Join(dir, "fixture")
	// A list then a watch (not a watch list), so the recording holds a
	// CBOR list and a CBOR watch; each change below is one watch event.
	watch := []string{"--node", node, "--watch-list=false", "--max-events", "4", "-o", "json", "--mode", "snapshot"}
	live := startCommand(t, ctx, bin, append([]string{"record", "--out", fixtureDir, "--kubeconfig", kubeconfig, "--content-type", "cbor"}, watch...)...)
	printed := []any{rawLine(t, live)}
	_, err := c.CreatePod(ctx, ns, "second", node, map[string]string{"step": "1"})
	if err == nil {
		_, err = c.UpdatePodLabels(ctx, ns, "second", map[string]string{"step": "2"})
	}
	if err == nil {
		_, err = c.DeletePod(ctx, ns, "second", &zero)
	}
	if err != nil {
		t.Fatalf("change pods: %v", err)
	}
	// Each change is one push: ADDED, MODIFIED, MODIFIED (deleting), DELETED.
	for range 4 {
		printed = append(printed, rawLine(t, live))
	}
	if err := live.waitExit(t); err != nil {
		t.Fatalf("record: %v; stderr:\n%s", err, live.stderr())
	}
	rec, err := fixture.Load(fixtureDir)
	if err != nil {
		t.Fatalf("load the recording: %v", err)
	}
	var list, watchBody bool
	for _, ex := range rec.Exchanges {
		if ex.Response.Status == http.StatusOK && ex.Response.Format() == wire.CBOR {
			mt := ex.Response.ContentType()
			list = list || mt == wire.ContentTypeCBOR
			watchBody = watchBody || mt == wire.ContentTypeCBORSeq
		}
	}
	if !list || !watchBody {
		t.Fatalf("the recording holds a CBOR list %t and a CBOR watch %t, want both", list, watchBody)
	}
	replay := startCommand(t, ctx, bin, append([]string{"watch", "--replay", fixtureDir, "--speed", "0"}, watch...)...)
	var replayed []any
	for range printed {
		replayed = append(replayed, rawLine(t, replay))
	}
	if err := replay.waitExit(t); err != nil {
		t.Fatalf("replay: %v; stderr:\n%s", err, replay.stderr())
	}
	if d := cmp.Diff(printed, replayed); d != "" {
		t.Errorf("the replay printed other updates than the live watch (-live +replay):\n%s", d)
	}
}
