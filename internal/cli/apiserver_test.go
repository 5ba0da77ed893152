package cli

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/cli/replay"
)

// The scripted cluster: pods derived from ../../testdata/pod.json, a real pod.
// podA is that pod verbatim; the others drop its managedFields to keep the
// golden files readable. podX is on another node and must appear only with
// --all-nodes.
//
// The initial state (resourceVersion 10) is A, B (node-1) and X (node-2).
// Then, in order:
//
//	11 ADDED    C        (node-1)
//	12 MODIFIED X        status only (node-2)
//	13 MODIFIED A        status only: a container restarted    -> RECONCILE
//	14 BOOKMARK
//	15 MODIFIED B        a label added                         -> UPDATE
//	16 MODIFIED A        deletionTimestamp set                  -> DELETE
//	17 DELETED  A                                               -> REMOVE
//
// node-1 sees five change events after the initial sync; all nodes six.
const (
	listRV     = "10"
	node1      = "node-1"
	node1Count = "5"
)

type testPod struct {
	namespace, name, node string
	rv                    int
	raw                   []byte // the object's JSON as the server sends it
}

type scriptEvent struct {
	typ string
	pod testPod
}

// fakeCluster is the scripted state and stream.
type fakeCluster struct {
	initial []testPod
	script  []scriptEvent
}

func loadPod(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pod.json"))
	if err != nil {
		t.Fatalf("read pod.json: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode pod.json: %v", err)
	}
	return m
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return data
}

// variant derives a pod from base: a new name, uid, node and resourceVersion,
// then edit applied to the copy.
func variant(t testing.TB, base map[string]any, namespace, name, uid, node string, rv int, keepManaged bool, edit func(m map[string]any)) testPod {
	t.Helper()
	m := deepCopy(base).(map[string]any)
	md := m["metadata"].(map[string]any)
	md["namespace"], md["name"], md["uid"] = namespace, name, uid
	if i := strings.LastIndex(name, "-"); i > 0 {
		md["generateName"] = name[:i+1]
	}
	md["resourceVersion"] = strconv.Itoa(rv)
	if !keepManaged {
		delete(md, "managedFields")
	}
	m["spec"].(map[string]any)["nodeName"] = node
	if edit != nil {
		edit(m)
	}
	return testPod{namespace: namespace, name: name, node: node, rv: rv, raw: mustJSON(t, m)}
}

func newFakeCluster(t testing.TB) *fakeCluster {
	base := loadPod(t)
	aName := "web-frontend-7d9f8b6c5d-x2kqz"
	aUID := "5b6f6f44-0aaa-4585-aee5-08a12dee98f2"
	setLabel := func(k, v string) func(map[string]any) {
		return func(m map[string]any) {
			m["metadata"].(map[string]any)["labels"].(map[string]any)[k] = v
		}
	}
	restarted := func(m map[string]any) {
		cs := m["status"].(map[string]any)["containerStatuses"].([]any)
		cs[0].(map[string]any)["restartCount"] = 1
	}
	deleting := func(m map[string]any) {
		restarted(m)
		md := m["metadata"].(map[string]any)
		md["deletionTimestamp"] = "2026-12-02T11:00:00Z"
		md["deletionGracePeriodSeconds"] = 30
	}
	b := setLabel("app", "api-backend")
	bRollout := func(m map[string]any) { b(m); setLabel("rollout", "2")(m) }
	xIP := func(m map[string]any) { m["status"].(map[string]any)["podIP"] = "10.244.2.9" }

	podA := variant(t, base, "default", aName, aUID, node1, 5, true, nil)
	podB := variant(t, base, "default", "api-backend-5c8d7f9b4-q7wzt", "0b1c2d3e-0000-4000-8000-00000000000b", node1, 6, false, b)
	podX := variant(t, base, "jobs", "batch-runner-0", "0b1c2d3e-0000-4000-8000-00000000000x", "node-2", 7, false, nil)
	return &fakeCluster{
		initial: []testPod{podA, podB, podX},
		script: []scriptEvent{
			{"ADDED", variant(t, base, "default", "cache-0", "0b1c2d3e-0000-4000-8000-00000000000c", node1, 11, false, setLabel("app", "cache"))},
			{"MODIFIED", variant(t, base, "jobs", "batch-runner-0", "0b1c2d3e-0000-4000-8000-00000000000x", "node-2", 12, false, xIP)},
			{"MODIFIED", variant(t, base, "default", aName, aUID, node1, 13, true, restarted)},
			{"BOOKMARK", testPod{rv: 14, raw: []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"14"}}`)}},
			{"MODIFIED", variant(t, base, "default", "api-backend-5c8d7f9b4-q7wzt", "0b1c2d3e-0000-4000-8000-00000000000b", node1, 15, false, bRollout)},
			{"MODIFIED", variant(t, base, "default", aName, aUID, node1, 16, true, deleting)},
			{"DELETED", variant(t, base, "default", aName, aUID, node1, 17, true, deleting)},
		},
	}
}

// fakeAPI serves a fakeCluster over TLS as the apiserver would: lists (with
// limit and continue), watches from a resourceVersion, and watch lists. It
// honours the namespace and a spec.nodeName field selector, requires the
// bearer token, and records every request.
type fakeAPI struct {
	t       testing.TB
	cluster *fakeCluster
	srv     *httptest.Server
	caFile  string
	quit    chan struct{}

	// stallLists holds list requests without an answer until the client
	// gives up.
	stallLists bool

	mu       sync.Mutex
	requests []*url.URL
	headers  []http.Header
	// sent is every watch event line written, for comparing with --events.
	sent []string
}

func startFakeAPI(t testing.TB) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, cluster: newFakeCluster(t), quit: make(chan struct{})}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	// Refused handshakes are what some tests are about; keep them out of the log.
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.srv.StartTLS()
	f.caFile = filepath.Join(t.TempDir(), "ca.crt")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	if err := os.WriteFile(f.caFile, ca, 0o600); err != nil {
		t.Fatalf("write CA: %v", err)
	}
	t.Cleanup(func() {
		close(f.quit)
		f.srv.Close()
	})
	return f
}

// connArgs are the flags that reach the fake apiserver.
func (f *fakeAPI) connArgs() []string {
	return []string{"--server", f.srv.URL, "--certificate-authority", f.caFile, "--token", clitest.Token}
}

func (f *fakeAPI) Requests() []*url.URL {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*url.URL(nil), f.requests...)
}

func (f *fakeAPI) Headers() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]http.Header(nil), f.headers...)
}

func (f *fakeAPI) Sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	u := *r.URL
	f.requests = append(f.requests, &u)
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+clitest.Token {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	ns, ok := podsPath(r.URL.Path)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", "no such path "+r.URL.Path)
		return
	}
	q := r.URL.Query()
	match := func(p testPod) bool {
		if ns != "" && p.namespace != ns {
			return false
		}
		node := replay.NodeFromSelector(q.Get("fieldSelector"))
		return node == "" || p.node == node
	}
	if q.Get("watch") == "true" {
		f.watch(w, r, match)
		return
	}
	if f.stallLists {
		select {
		case <-r.Context().Done():
		case <-f.quit:
		}
		return
	}
	f.list(w, q, match)
}

// podsPath parses /api/v1/pods and /api/v1/namespaces/NS/pods.
func podsPath(p string) (namespace string, ok bool) {
	if p == "/api/v1/pods" {
		return "", true
	}
	rest, found := strings.CutPrefix(p, "/api/v1/namespaces/")
	if !found {
		return "", false
	}
	ns, tail, _ := strings.Cut(rest, "/")
	return ns, tail == "pods"
}

func (f *fakeAPI) list(w http.ResponseWriter, q url.Values, match func(testPod) bool) {
	var items []testPod
	for _, p := range f.cluster.initial {
		if match(p) {
			items = append(items, p)
		}
	}
	start, _ := strconv.Atoi(q.Get("continue"))
	end := len(items)
	if limit, _ := strconv.Atoi(q.Get("limit")); limit > 0 && start+limit < end {
		end = start + limit
	}
	cont := ""
	if end < len(items) {
		cont = strconv.Itoa(end)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q,"continue":%q},"items":[`, listRV, cont)
	for i, p := range items[start:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p.raw)
	}
	b.WriteString("]}")
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, b.String())
}

func (f *fakeAPI) watch(w http.ResponseWriter, r *http.Request, match func(testPod) bool) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	send := func(typ string, obj []byte) {
		line := `{"type":"` + typ + `","object":` + string(obj) + `}`
		f.mu.Lock()
		f.sent = append(f.sent, line)
		f.mu.Unlock()
		fmt.Fprint(w, line+"\n")
		w.(http.Flusher).Flush()
	}
	from := 0
	if q.Get("sendInitialEvents") == "true" {
		for _, p := range f.cluster.initial {
			if match(p) {
				send("ADDED", p.raw)
			}
		}
		send("BOOKMARK", []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"`+listRV+`","annotations":{"k8s.io/initial-events-end":"true"}}}`))
		from, _ = strconv.Atoi(listRV)
	} else {
		from, _ = strconv.Atoi(q.Get("resourceVersion"))
	}
	for _, ev := range f.cluster.script {
		if ev.pod.rv > from && (ev.typ == "BOOKMARK" || match(ev.pod)) {
			send(ev.typ, ev.pod.raw)
		}
	}
	select {
	case <-r.Context().Done():
	case <-f.quit:
	}
}
