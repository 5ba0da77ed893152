package cache

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// realPodJSON returns the recorded real pod renamed and re-versioned.
func realPodJSON(t *testing.T, name, rv string) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/pod.json")
	if err != nil {
		t.Fatalf("read pod: %v", err)
	}
	p, err := api.DecodePod(data)
	if err != nil {
		t.Fatalf("decode pod: %v", err)
	}
	p.Metadata.Name, p.Metadata.ResourceVersion, p.Metadata.UID = name, rv, "uid-"+name
	p.Spec.NodeName = "node-a"
	out, err := p.MarshalJSON()
	if err != nil {
		t.Fatalf("encode pod: %v", err)
	}
	return string(out)
}

func listBody(rv string, pods ...string) string {
	return fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q},"items":[%s]}`, rv, strings.Join(pods, ","))
}

func event(typ, obj string) string { return fmt.Sprintf(`{"type":%q,"object":%s}`+"\n", typ, obj) }

// scriptServer is an httptest apiserver answering each request with the next
// scripted handler; past the script it holds the request open until the client
// leaves, as an idle watch would.
type scriptServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []http.HandlerFunc
	requests []string
}

func newScriptServer(t *testing.T, script ...http.HandlerFunc) *scriptServer {
	s := &scriptServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.RequestURI())
		var h http.HandlerFunc
		if len(s.script) > 0 {
			h, s.script = s.script[0], s.script[1:]
		}
		s.mu.Unlock()
		if h == nil {
			w.Header().Set("Content-Type", "application/json")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptServer) uris() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func answer(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// chunks writes each string as its own flushed chunk, then ends the response
// cleanly, or cuts the connection when cut is set.
func chunks(cut bool, parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for _, p := range parts {
			fmt.Fprint(w, p)
			w.(http.Flusher).Flush()
		}
		if cut {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}
}

// syncedTo runs a reflector against srv until a push at rv arrives (or the test
// times out), then stops it; it returns the pushes.
func syncedTo(t *testing.T, srv *scriptServer, rv string, opts ReflectorOptions) []push {
	t.Helper()
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(c, "pods", "", rest.OneTermEqualSelector("spec.nodeName", "node-a"), api.Codec)
	var log pushLog
	reached := make(chan struct{})
	var once sync.Once
	store := NewUndeltaStore(func(items []*api.Pod, at string) {
		log.fn(items, at)
		if at == rv {
			once.Do(func() { close(reached) })
		}
	}, MetaNamespaceKey[*api.Pod])
	if opts.Backoff.Initial == 0 {
		opts.Backoff = Backoff{Initial: 5 * time.Millisecond, Max: 50 * time.Millisecond}
	}
	r := NewReflector[*api.Pod](lw, store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	select {
	case <-reached:
	case <-time.After(20 * time.Second):
		t.Errorf("no push at resourceVersion %s; requests %q; pushes %+v", rv, srv.uris(), log.get())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return after cancel")
	}
	return log.get()
}

func TestReflectorOverHTTPSplitAndMergedChunks(t *testing.T) {
	a1, b2, a3 := realPodJSON(t, "a", "1"), realPodJSON(t, "b", "2"), realPodJSON(t, "a", "3")
	stream := event("ADDED", b2) + event("MODIFIED", a3) + event("BOOKMARK", `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"4"}}`)
	// Cut the stream in the middle of the first event, then deliver the rest of
	// it with the whole second event and half the bookmark in one chunk.
	cut1, cut2 := len(stream)/5, len(stream)-20
	srv := newScriptServer(t,
		answer(200, listBody("1", a1)),
		chunks(false, stream[:cut1], stream[cut1:cut2], stream[cut2:]),
	)
	pushes := syncedTo(t, srv, "3", ReflectorOptions{})
	want := []push{{[]string{"a@1"}, "1"}, {[]string{"a@1", "b@2"}, "2"}, {[]string{"a@3", "b@2"}, "3"}}
	if diff := cmp.Diff(want, pushes); diff != "" {
		t.Fatalf("pushes (-want +got):\n%s", diff)
	}
	uris := srv.uris()
	wantURIs := []string{
		"/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a",
	}
	if diff := cmp.Diff(wantURIs, uris[:1]); diff != "" {
		t.Fatalf("list request (-want +got):\n%s", diff)
	}
	if !strings.Contains(uris[1], "watch=true") || !strings.Contains(uris[1], "resourceVersion=1") || !strings.Contains(uris[1], "allowWatchBookmarks=true") {
		t.Fatalf("watch request %q lacks watch=true, resourceVersion=1 or allowWatchBookmarks=true", uris[1])
	}
}

func TestReflectorOverHTTPConnectionDropMidEvent(t *testing.T) {
	a1, b2, c3 := realPodJSON(t, "a", "1"), realPodJSON(t, "b", "2"), realPodJSON(t, "c", "3")
	second := event("ADDED", c3)
	srv := newScriptServer(t,
		answer(200, listBody("1", a1)),
		chunks(true, event("ADDED", b2), second[:len(second)/2]),
		chunks(false, event("ADDED", c3)),
	)
	pushes := syncedTo(t, srv, "3", ReflectorOptions{})
	uris := srv.uris()
	if len(uris) < 3 || !strings.Contains(uris[2], "resourceVersion=2") || !strings.Contains(uris[2], "watch=true") {
		t.Fatalf("after the cut, requests were %q; want a watch resumed from resourceVersion 2", uris)
	}
	if last := pushes[len(pushes)-1]; !cmp.Equal(last, push{[]string{"a@1", "b@2", "c@3"}, "3"}) {
		t.Fatalf("last push %+v", last)
	}
}

func TestReflectorOverHTTPGoneThenRelist(t *testing.T) {
	a1, a5 := realPodJSON(t, "a", "1"), realPodJSON(t, "a", "5")
	srv := newScriptServer(t,
		answer(200, listBody("1", a1)),
		answer(410, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (4)","reason":"Expired","code":410}`),
		answer(200, listBody("5", a5)),
	)
	pushes := syncedTo(t, srv, "5", ReflectorOptions{})
	uris := srv.uris()
	if len(uris) < 3 || uris[2] != "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&resourceVersion=1&resourceVersionMatch=NotOlderThan" {
		t.Fatalf("requests %q: want a relist not older than resourceVersion 1", uris)
	}
	if last := pushes[len(pushes)-1]; last.RV != "5" {
		t.Fatalf("last push %+v", last)
	}
}

func TestReflectorOverHTTPTooManyRequestsOnList(t *testing.T) {
	a1 := realPodJSON(t, "a", "1")
	srv := newScriptServer(t,
		answer(429, `{"kind":"Status","code":429,"reason":"TooManyRequests","details":{"retryAfterSeconds":1}}`, "Retry-After", "1"),
		answer(200, listBody("1", a1)),
	)
	pushes := syncedTo(t, srv, "1", ReflectorOptions{})
	if diff := cmp.Diff([]push{{[]string{"a@1"}, "1"}}, pushes); diff != "" {
		t.Fatalf("pushes (-want +got):\n%s", diff)
	}
	if n := len(srv.uris()); n < 2 {
		t.Fatalf("got %d requests, want the list retried", n)
	}
}

func TestReflectorOverHTTPCancelLeavesNoGoroutine(t *testing.T) {
	srv := newScriptServer(t, answer(200, listBody("1", realPodJSON(t, "a", "1"))))
	before := runtime.NumGoroutine()
	syncedTo(t, srv, "1", ReflectorOptions{})
	srv.CloseClientConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after cancel:\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
