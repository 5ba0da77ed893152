package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// kubeletAccept is what the kubelet's client sends.
const kubeletAccept = wire.ContentTypeProtobuf + "," + wire.ContentTypeJSON

// TestServedProtobuf judges podwatch's protobuf answers by the real
// apiserver: each JSON answer the apiserver gives, written through
// apiwire.Respond as podwatch's servers write theirs, must come out as the
// very bytes the apiserver gives a protobuf client for the same objects:
// lists, Status answers, watch frames (a watch list's ADDED events and its
// closing bookmark, then a change), and podwatch's own bookmark. Discovery
// must come in the form the apiserver uses for a protobuf Accept.
func TestServedProtobuf(t *testing.T) {
	c, ctx := startCluster(t, 4*time.Minute)
	const ns = "pb-serve"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	createRecordedPod(t, ctx, c, ns)
	t.Run("discovery", func(t *testing.T) { testServedDiscovery(t, ctx, c) })
	t.Run("list", func(t *testing.T) { testServedList(t, ctx, c, ns) })
	t.Run("status", func(t *testing.T) { testServedStatus(t, ctx, c, ns) })
	t.Run("watch", func(t *testing.T) { testServedWatch(t, ctx, c, ns) })
}

// fetched is one answer of the real apiserver.
type fetched struct {
	code        int
	contentType string
	body        []byte
}

func fetch(t *testing.T, ctx context.Context, c *cluster.Cluster, path, accept string) fetched {
	t.Helper()
	resp := adminGet(t, ctx, c, path, accept)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return fetched{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// respond writes a JSON answer through apiwire.Respond for a protobuf client
// of target, as podwatch's servers do, and returns what the client gets.
func respond(target string, code int, jsonBody []byte) fetched {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Accept", kubeletAccept)
	rec := httptest.NewRecorder()
	w, _ := apiwire.Respond(rec, req)
	w.Header().Set("Content-Type", wire.ContentTypeJSON)
	w.WriteHeader(code)
	w.Write(jsonBody)
	return fetched{rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()}
}

func mediaType(t *testing.T, ct string) string {
	t.Helper()
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", ct, err)
	}
	return mt
}

// testServedDiscovery: the apiserver answers discovery in JSON even to a
// client that prefers protobuf, as podwatch does.
func testServedDiscovery(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	for _, path := range []string{"/api", "/api/v1", "/apis"} {
		real := fetch(t, ctx, c, path, kubeletAccept)
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", kubeletAccept)
		rec := httptest.NewRecorder()
		w, _ := apiwire.Respond(rec, req)
		if !apiwire.ServeDiscovery(w, req) {
			t.Fatalf("podwatch serves no discovery at %s", path)
		}
		if got, want := mediaType(t, rec.Header().Get("Content-Type")), mediaType(t, real.contentType); got != want {
			t.Errorf("%s for %q: podwatch answers %s, the apiserver %s", path, kubeletAccept, got, want)
		}
	}
}

func testServedList(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string) {
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	path := "/api/v1/namespaces/" + ns + "/pods"
	js := fetch(t, ctx, c, path+"?"+q.Encode(), wire.ContentTypeJSON)
	var head struct {
		Metadata struct{ ResourceVersion string }
		Items    []json.RawMessage
	}
	if err := json.Unmarshal(js.body, &head); err != nil || js.code != http.StatusOK || len(head.Items) != 2 {
		t.Fatalf("JSON list: %d, %d items, %v, want 200 and 2 pods", js.code, len(head.Items), err)
	}
	// The protobuf list of the same state.
	q.Set("resourceVersion", head.Metadata.ResourceVersion)
	q.Set("resourceVersionMatch", "Exact")
	pb := fetch(t, ctx, c, path+"?"+q.Encode(), kubeletAccept)
	got := respond(path, http.StatusOK, js.body)
	compareAnswers(t, "list", got, pb)
}

// testServedStatus: a 404 and a 400, as the apiserver writes them in JSON,
// become its protobuf Status envelopes; so does podwatch's own 404.
func testServedStatus(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string) {
	for _, path := range []string{
		"/api/v1/namespaces/" + ns + "/pods/missing",
		"/api/v1/namespaces/" + ns + "/pods?resourceVersion=abc",
	} {
		js := fetch(t, ctx, c, path, wire.ContentTypeJSON)
		pb := fetch(t, ctx, c, path, kubeletAccept)
		if js.code < 400 {
			t.Fatalf("%s: %d, want an error", path, js.code)
		}
		got := respond("/api/v1/pods", js.code, js.body)
		compareAnswers(t, path, got, pb)
	}
	// podwatch's own 404 for a path it does not serve is the apiserver's.
	real := fetch(t, ctx, c, "/api/v1/bogus", kubeletAccept)
	compareAnswers(t, "podwatch's NotFound", respond("/api/v1/bogus", http.StatusNotFound, apiwire.NotFound().JSON()), real)
}

func compareAnswers(t *testing.T, what string, got, want fetched) {
	t.Helper()
	if got.code != want.code || got.contentType != want.contentType {
		t.Errorf("%s: podwatch answers %d %q, the apiserver %d %q", what, got.code, got.contentType, want.code, want.contentType)
	}
	if !bytes.Equal(got.body, want.body) {
		t.Errorf("%s: podwatch's protobuf (%d bytes) differs from the apiserver's (%d bytes):\npodwatch  %q\napiserver %q",
			what, len(got.body), len(want.body), got.body, want.body)
	}
}

// testServedWatch opens the kubelet's watch list in both content types,
// reads each to its initial-events-end bookmark and one change after it, and
// compares frame by frame.
func testServedWatch(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string) {
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}, "watch": {"true"}, "sendInitialEvents": {"true"},
		"resourceVersionMatch": {"NotOlderThan"}, "allowWatchBookmarks": {"true"}, "timeoutSeconds": {"60"}}
	path := "/api/v1/namespaces/" + ns + "/pods?" + q.Encode()
	jsonEvents := make(chan []byte, 16)
	pbFrames := make(chan []byte, 16)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jsonCT := openWatch(t, wctx, c, path, wire.ContentTypeJSON, jsonEvents, readJSONEvent)
	pbCT := openWatch(t, wctx, c, path, kubeletAccept, pbFrames, readFrame)
	if pbCT != wire.Protobuf.WatchContentType() || jsonCT != wire.JSON.WatchContentType() {
		t.Fatalf("watch Content-Types %q and %q", jsonCT, pbCT)
	}
	var initial [][2][]byte // JSON event, protobuf frame
	for {
		j, p := next(t, ctx, jsonEvents), next(t, ctx, pbFrames)
		initial = append(initial, [2][]byte{j, p})
		if bytes.Contains(j, []byte(apiwire.InitialEventsEnd)) {
			break
		}
	}
	if _, err := c.CreatePod(ctx, ns, "late", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	change := [2][]byte{next(t, ctx, jsonEvents), next(t, ctx, pbFrames)}
	if len(initial) != 3 {
		t.Errorf("%d initial events, want 2 pods and the bookmark", len(initial))
	}
	for i, ev := range append(initial, change) {
		if i == len(initial)-1 {
			// The two watch lists may close at different resourceVersions;
			// podwatch's own bookmark at the apiserver's is judged below.
			continue
		}
		got := respond(path, http.StatusOK, ev[0])
		if want := fetchedFrame(ev[1]); !bytes.Equal(got.body, want) {
			t.Errorf("event %d: podwatch's frame differs from the apiserver's:\nJSON      %s\npodwatch  %q\napiserver %q", i, ev[0], got.body, want)
		}
	}
	// podwatch's initial-events-end bookmark, at the apiserver's
	// resourceVersion, is the apiserver's frame.
	real := initial[len(initial)-1][1]
	rv := bookmarkRV(t, real)
	got := respond(path, http.StatusOK, apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(rv, true)))
	if want := fetchedFrame(real); !bytes.Equal(got.body, want) {
		t.Errorf("initial-events-end bookmark at %s:\npodwatch  %q\napiserver %q", rv, got.body, want)
	}
}

// fetchedFrame puts back the length prefix readFrame took off.
func fetchedFrame(frame []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(frame))), frame...)
}

func bookmarkRV(t *testing.T, frame []byte) string {
	t.Helper()
	ev, err := protowire.ParseWatchEvent(frame, 0)
	if err != nil || ev.Type != apiwire.Bookmark {
		t.Fatalf("bookmark frame: %+v %v", ev, err)
	}
	u, err := protowire.ParseEnvelope(ev.Object, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tc protowire.Transcoder
	js, err := tc.Object(u)
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := json.Unmarshal(js, &b); err != nil || b.Metadata.ResourceVersion == "" {
		t.Fatalf("bookmark %s: %v", js, err)
	}
	return b.Metadata.ResourceVersion
}

func next(t *testing.T, ctx context.Context, ch <-chan []byte) []byte {
	t.Helper()
	select {
	case b, ok := <-ch:
		if !ok {
			t.Fatalf("watch ended early")
		}
		return b
	case <-time.After(wait):
		t.Fatalf("no event within %s", wait)
	case <-ctx.Done():
		t.Fatalf("test bound reached")
	}
	return nil
}

// openWatch starts a watch and a reader that sends each event (read) on out
// until the body ends; it returns the answer's Content-Type. Periodic
// bookmarks, which the two watches need not get alike, are left out.
func openWatch(t *testing.T, ctx context.Context, c *cluster.Cluster, path, accept string, out chan<- []byte,
	read func(*bufio.Reader) ([]byte, error)) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.Client(c.AdminToken).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s as %s: %v %v", path, accept, resp, err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		resp.Body.Close()
		<-done
	})
	go func() {
		defer close(done)
		defer close(out)
		br := bufio.NewReader(resp.Body)
		for {
			ev, err := read(br)
			if err != nil {
				return
			}
			if periodicBookmark(ev) {
				continue
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return resp.Header.Get("Content-Type")
}

// periodicBookmark reports a bookmark that is not a watch list's end.
func periodicBookmark(ev []byte) bool {
	return bytes.Contains(ev, []byte(apiwire.Bookmark)) && !bytes.Contains(ev, []byte(apiwire.InitialEventsEnd))
}

// readJSONEvent reads one event line as the apiserver wrote it.
func readJSONEvent(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if !json.Valid(line) {
		return nil, fmt.Errorf("not one JSON event: %q", line)
	}
	return line, nil
}

// readFrame reads one protobuf watch frame, without its length.
func readFrame(br *bufio.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(br, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return b, err
}
