package source

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// fakeAPIServer is an apiserver for pods spread over nodes: it lists and watches
// them honouring fieldSelector=spec.nodeName=NODE (and refuses any other
// selector), with a resourceVersion per change and an event log that watches
// replay from the version they ask for. Events are streamed as the apiserver
// does over HTTP/1.1: one JSON object per line, chunked, each split across two
// flushes so a chunk boundary falls inside it.
type fakeAPIServer struct {
	*httptest.Server
	template *api.Pod

	mu        sync.Mutex
	rv        int
	pods      map[string]*api.Pod // by namespace/name
	log       []logEntry
	changed   chan struct{} // closed and replaced on every change
	selectors []string
	listed    chan struct{} // gets a value (if there is room) after each list
}

type logEntry struct {
	rv   int
	typ  string
	node string
	obj  []byte
}

func newFakeAPIServer(t *testing.T) *fakeAPIServer {
	t.Helper()
	tmpl, err := api.DecodePod(readTestdata(t, "../../../testdata/pod.json"))
	if err != nil {
		t.Fatalf("decode template pod: %v", err)
	}
	s := &fakeAPIServer{template: tmpl, rv: 100, pods: map[string]*api.Pod{}, changed: make(chan struct{}), listed: make(chan struct{}, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// add creates a pod from the template on node; edit, if set, changes it first.
func (s *fakeAPIServer) add(t *testing.T, namespace, name, node string, edit func(*api.Pod)) {
	p := s.template.DeepCopy()
	p.Metadata.Namespace, p.Metadata.Name, p.Metadata.UID = namespace, name, "uid-"+name
	p.Spec.NodeName = node
	if edit != nil {
		edit(p)
	}
	s.change(t, "ADDED", p)
}

// modify changes a stored pod.
func (s *fakeAPIServer) modify(t *testing.T, key string, edit func(*api.Pod)) {
	s.mu.Lock()
	p := s.pods[key].DeepCopy()
	s.mu.Unlock()
	edit(p)
	s.change(t, "MODIFIED", p)
}

func (s *fakeAPIServer) remove(t *testing.T, key string) {
	s.mu.Lock()
	p := s.pods[key].DeepCopy()
	s.mu.Unlock()
	s.change(t, "DELETED", p)
}

func (s *fakeAPIServer) change(t *testing.T, typ string, p *api.Pod) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	p.Metadata.ResourceVersion = strconv.Itoa(s.rv)
	obj, err := p.MarshalJSON()
	if err != nil {
		t.Fatalf("encode pod: %v", err)
	}
	if typ == "DELETED" {
		delete(s.pods, podconfig.FullName(p))
	} else {
		s.pods[podconfig.FullName(p)] = p
	}
	s.log = append(s.log, logEntry{rv: s.rv, typ: typ, node: p.Spec.NodeName, obj: obj})
	close(s.changed)
	s.changed = make(chan struct{})
}

// state returns node's pods as "ns/name@rv image" lines, sorted.
func (s *fakeAPIServer) state(node string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.pods {
		if p.Spec.NodeName == node {
			out = append(out, describe(p))
		}
	}
	slices.Sort(out)
	return out
}

func describe(p *api.Pod) string {
	return fmt.Sprintf("%s@%s %s", podconfig.FullName(p), p.Metadata.ResourceVersion, p.Spec.Containers[0].Image)
}

func (s *fakeAPIServer) requestedSelectors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.selectors)
}

func (s *fakeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sel := q.Get("fieldSelector")
	s.mu.Lock()
	s.selectors = append(s.selectors, sel)
	s.mu.Unlock()
	node, ok := strings.CutPrefix(sel, "spec.nodeName=")
	switch {
	case r.URL.Path != "/api/v1/pods":
		status(w, http.StatusNotFound, "NotFound", "no such path "+r.URL.Path)
	case !ok || node == "" || strings.ContainsAny(node, ",=!"):
		status(w, http.StatusBadRequest, "BadRequest", "this fake serves fieldSelector=spec.nodeName=NODE only, not "+strconv.Quote(sel))
	case q.Get("sendInitialEvents") != "":
		status(w, http.StatusBadRequest, "BadRequest", "this fake serves no watch lists")
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		s.watch(w, r, node, q.Get("resourceVersion"))
	default:
		s.list(w, node)
	}
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

func (s *fakeAPIServer) list(w http.ResponseWriter, node string) {
	s.mu.Lock()
	var items []string
	for _, p := range s.pods {
		if p.Spec.NodeName == node {
			obj, _ := p.MarshalJSON()
			items = append(items, string(obj))
		}
	}
	rv := s.rv
	s.mu.Unlock()
	slices.Sort(items)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[%s]}`, rv, strings.Join(items, ","))
	select {
	case s.listed <- struct{}{}:
	default:
	}
}

func (s *fakeAPIServer) watch(w http.ResponseWriter, r *http.Request, node, from string) {
	cursor, err := strconv.Atoi(from)
	if err != nil {
		status(w, http.StatusBadRequest, "BadRequest", "this fake watches from a numeric resourceVersion only")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	for {
		s.mu.Lock()
		var events [][]byte
		for _, e := range s.log {
			if e.rv > cursor && e.node == node {
				events = append(events, fmt.Appendf(nil, `{"type":%q,"object":%s}`+"\n", e.typ, e.obj))
			}
			cursor = max(cursor, e.rv)
		}
		changed := s.changed
		s.mu.Unlock()
		for _, ev := range events {
			half := len(ev) / 2
			for _, part := range [][]byte{ev[:half], ev[half:]} {
				if _, err := w.Write(part); err != nil {
					return
				}
				f.Flush()
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// startAPI runs an API source for node-a against srv, sending on the channel
// channel returns for the source's ctx; the cleanup stops it and checks that it
// returned.
func startAPI(t *testing.T, srv *fakeAPIServer, channel func(context.Context) chan<- podconfig.PodUpdate) {
	t.Helper()
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := channel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); NewAPI(c, "node-a", APIOptions{}).Run(ctx, out) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Errorf("API.Run still running %v after its ctx ended", wait)
		}
	})
}

func chanOf(ch chan podconfig.PodUpdate) func(context.Context) chan<- podconfig.PodUpdate {
	return func(context.Context) chan<- podconfig.PodUpdate { return ch }
}

func seedNodes(t *testing.T, srv *fakeAPIServer) {
	srv.add(t, "default", "a1", "node-a", nil)
	srv.add(t, "default", "a2", "node-a", nil)
	srv.add(t, "default", "b1", "node-b", nil)
	srv.add(t, "kube-system", "etcd-node-a", "node-a", func(p *api.Pod) {
		p.Metadata.Annotations = map[string]string{podconfig.MirrorAnnotation: "0f3c", podconfig.HashAnnotation: "0f3c"}
	})
}

func setImage(img string) func(*api.Pod) {
	return func(p *api.Pod) { p.Spec.Containers[0].Image = img }
}

func TestAPISourceEndToEnd(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	out := make(chan podconfig.PodUpdate)
	startAPI(t, srv, chanOf(out))

	first := waitForSET(t, out, "default/a1", "default/a2", "kube-system/etcd-node-a")
	if !podconfig.IsMirrorPod(first.Pods[2]) {
		t.Fatalf("the mirror pod lost its annotation: %v", first.Pods[2].Metadata.Annotations)
	}

	srv.add(t, "default", "b2", "node-b", nil)
	srv.add(t, "default", "a3", "node-a", nil)
	srv.modify(t, "default/b1", setImage("other:2"))
	srv.modify(t, "default/a1", setImage("web:2"))
	srv.modify(t, "default/a2", func(p *api.Pod) { now := time.Now(); p.Metadata.DeletionTimestamp = &now })
	srv.remove(t, "default/a2")
	srv.modify(t, "default/a3", func(p *api.Pod) { p.Status.PodIP = "10.1.2.3" })
	want := srv.state("node-a")

	// Every SET holds node-a's pods only, until one matches the server.
	timeout := time.After(wait)
	var got []string
	for !cmp.Equal(want, got) {
		select {
		case u := <-out:
			got = got[:0]
			for _, p := range u.Pods {
				if p.Spec.NodeName != "node-a" {
					t.Fatalf("pod %s of %s in the SET for node-a", podconfig.FullName(p), p.Spec.NodeName)
				}
				got = append(got, describe(p))
			}
		case <-timeout:
			t.Fatalf("no SET matching the server within %v (-want +last):\n%s", wait, cmp.Diff(want, got))
		}
	}
	for _, sel := range srv.requestedSelectors() {
		if sel != "spec.nodeName=node-a" {
			t.Fatalf("a request asked for fieldSelector %q, want spec.nodeName=node-a", sel)
		}
	}
}

// TestAPISourceThroughPodConfig follows server changes to the updates a kubelet
// sees: one per change on node-a, none for node-b's. Each watch event is one push
// and so one merge, which fixes the order.
func TestAPISourceThroughPodConfig(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	cfg := podconfig.New(podconfig.Incremental, podconfig.Options{})
	t.Cleanup(cfg.Wait) // runs after startAPI's cleanup has ended the ctx
	startAPI(t, srv, func(ctx context.Context) chan<- podconfig.PodUpdate { return cfg.Channel(ctx, podconfig.SourceAPI) })
	next := func() podconfig.PodUpdate {
		t.Helper()
		select {
		case u := <-cfg.Updates():
			return u
		case <-time.After(wait):
			t.Fatalf("no update within %v", wait)
			return podconfig.PodUpdate{}
		}
	}
	line := func(u podconfig.PodUpdate) string {
		return fmt.Sprintf("%s %s: %s", u.Op, u.Source, strings.Join(names(u.Pods), " "))
	}

	first := next()
	if got, want := line(first), "ADD api: default/a1 default/a2 kube-system/etcd-node-a"; got != want {
		t.Fatalf("first update %q, want %q", got, want)
	}
	if p := first.Pods[2]; !podconfig.IsMirrorPod(p) || p.Metadata.Annotations[podconfig.SourceAnnotation] != podconfig.SourceAPI {
		t.Fatalf("mirror pod annotations %v, want the mirror mark and source api", p.Metadata.Annotations)
	}
	if !cfg.SeenAllSources([]string{podconfig.SourceAPI}) {
		t.Fatalf("api source not seen after its first SET")
	}

	srv.add(t, "default", "b2", "node-b", nil)
	srv.add(t, "default", "a3", "node-a", nil)
	srv.modify(t, "default/b1", setImage("other:2"))
	srv.modify(t, "default/a1", setImage("web:2"))
	srv.modify(t, "default/a2", func(p *api.Pod) { now := time.Now(); p.Metadata.DeletionTimestamp = &now })
	srv.modify(t, "default/a3", func(p *api.Pod) { p.Status.PodIP = "10.1.2.3" })
	srv.remove(t, "default/a2")
	want := []string{
		"ADD api: default/a3",
		"UPDATE api: default/a1",
		"DELETE api: default/a2",
		"RECONCILE api: default/a3",
		"REMOVE api: default/a2",
	}
	var got []string
	for range want {
		got = append(got, line(next()))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("updates (-want +got):\n%s", diff)
	}
}

// TestAPISourceStopsWhileBlocked ends the source while its push waits on a
// consumer that never reads.
func TestAPISourceStopsWhileBlocked(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	startAPI(t, srv, chanOf(make(chan podconfig.PodUpdate)))
	select {
	case <-srv.listed:
	case <-time.After(wait):
		t.Fatalf("the source did not list within %v", wait)
	}
	// The cleanup cancels and fails the test unless Run returns.
}
