package trace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// scripted is a server that answers each request with the next of its
// answers, in order, and fails a request it has no answer for.
type scripted struct {
	mu      sync.Mutex
	answers []answer
}

type answer struct {
	status      int
	body        string
	contentType string // default JSON
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if len(s.answers) == 0 {
		s.mu.Unlock()
		http.Error(w, "no answer scripted for "+r.URL.String(), http.StatusTeapot)
		return
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", cmp.Or(a.contentType, "application/json"))
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	io.WriteString(w, a.body)
}

func (s *scripted) then(status int, body string) { s.thenAs("", status, body) }

func (s *scripted) thenAs(contentType string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, answer{status, body, contentType})
}

// proxied sends a request of client's through tr and reads its body whole.
func proxied(t *testing.T, tr *Tracer, srv *httptest.Server, client, pathQuery string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(WithClient(context.Background(), client), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+pathQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.transport(http.DefaultTransport).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func podList(rv, cont string, pods ...string) string {
	return fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q,"continue":%q},"items":[%s]}`,
		rv, cont, strings.Join(pods, ","))
}

func watchEvent(typ, object string) string {
	return `{"type":"` + typ + `","object":` + object + "}\n"
}

const initialEventsEndBookmark = `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"20","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"

type missedStep struct {
	Kind   Kind
	Client string
	Missed *Missed
}

// missedOf is each missed step of a JSON trace, as "client how ns/name from..to@state".
func missedOf(t *testing.T, js string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var s missedStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		if s.Kind == KindMissed {
			m := s.Missed
			out = append(out, fmt.Sprintf("%s %s %s/%s %s..%s@%s", s.Client, m.How, m.Namespace, m.Name, m.From, m.To, m.State))
		}
	}
	return out
}

// TestProxyGapAudit: two clients of one collection, through a proxy's
// trace without --diff. Each relists after its watch was cut: kubectl with
// a paged list after a 410, client-go with a watch list. Each is told
// exactly what it missed, by its own history (client-go saw a change
// kubectl did not, and kubectl saw a DELETED), once the new state has come
// whole (the list's last page, the initial-events-end bookmark).
func TestProxyGapAudit(t *testing.T) {
	var js, text, page bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js), Text(&text, false), HTML(&page)}, Proxy: true})
	s := &scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	const kubectl, clientGo = "kubectl from 127.0.0.1", "client-go from 127.0.0.1"

	s.then(0, podList("10", "", podJSON("a", "5"), podJSON("b", "6"), podJSON("c", "7")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods")
	s.then(0, podList("10", "", podJSON("a", "5"), podJSON("b", "6")))
	proxied(t, tr, srv, clientGo, "/api/v1/pods")
	// kubectl's watch sees a change of a and c's deletion; client-go's
	// sees a change of b. Both are cut (the body just ends).
	s.then(0, watchEvent("MODIFIED", podJSON("a", "11"))+watchEvent("DELETED", podJSON("c", "12")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?watch=true&resourceVersion=10")
	s.then(0, watchEvent("MODIFIED", podJSON("b", "13")))
	proxied(t, tr, srv, clientGo, "/api/v1/pods?watch=true&resourceVersion=10")
	// kubectl resumes, is told its version is gone, and relists in pages.
	s.then(http.StatusGone, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)
	proxied(t, tr, srv, kubectl, "/api/v1/pods?watch=true&resourceVersion=12")
	s.then(0, podList("20", "more", podJSON("a", "15")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?limit=1")
	if got := missedOf(t, js.String()); len(got) != 0 {
		t.Fatalf("missed told before the relist's last page: %q", got)
	}
	s.then(0, podList("20", "", podJSON("d", "18")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?limit=1&continue=more")
	// client-go relists with a watch list.
	s.then(0, watchEvent("ADDED", podJSON("a", "15"))+watchEvent("ADDED", podJSON("b", "13"))+watchEvent("ADDED", podJSON("d", "18"))+initialEventsEndBookmark)
	proxied(t, tr, srv, clientGo, "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	want := []string{
		kubectl + " skipped ns/a 11..15@20",
		kubectl + " deleted ns/b 6..@20",
		clientGo + " skipped ns/a 5..15@20",
	}
	if got := missedOf(t, js.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("missed steps:\n%s\nwant:\n%s\n\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), js.String())
	}
	for _, want := range []string{"deleted ns/b rv 6..20", "client: " + kubectl, "missed 3 (1 deleted, 2 skipped)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text trace lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(page.String(), "missed b") || !strings.Contains(page.String(), "</html>") {
		t.Errorf("the HTML page does not mark the missed pods")
	}
}

// TestProxyGapAuditUnknownState: a relist whose state the trace could not
// read, or that was cut before it came whole, tells nothing missed rather
// than every pod deleted; the next complete relist is audited against what
// the client held before the first.
func TestProxyGapAuditUnknownState(t *testing.T) {
	var js bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js)}, Proxy: true})
	s := &scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.then(0, podList("10", "", podJSON("a", "5"), podJSON("b", "6")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods")
	s.then(0, watchEvent("MODIFIED", podJSON("a", "11")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&resourceVersion=10")
	// A watch list cut before its bookmark, then a list not JSON.
	s.then(0, watchEvent("ADDED", podJSON("a", "15")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	s.then(0, `{"kind":"PodList","items":[`)
	proxied(t, tr, srv, "kubelet", "/api/v1/pods")
	if got := missedOf(t, js.String()); len(got) != 0 {
		t.Fatalf("missed told of a state never seen whole: %q", got)
	}
	s.then(0, watchEvent("ADDED", podJSON("a", "11"))+initialEventsEndBookmark)
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(missedOf(t, js.String()), "\n"), "kubelet deleted ns/b 6..@20"; got != want {
		t.Fatalf("missed steps %q, want %q\n%s", got, want, js.String())
	}
}

// TestProxyGapAuditBounded: without --diff a proxy's trace keeps of each
// pod its resourceVersion alone, and no more scopes than the diff's bound,
// however many clients come.
func TestProxyGapAuditBounded(t *testing.T) {
	tr := New(Options{Sinks: []Sink{JSON(io.Discard)}, Proxy: true})
	defer tr.Close()
	s := &scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for i := range 2 * maxDiffScopes {
		s.then(0, podList("10", "", podJSON("a", "5"), podJSON("b", "6")))
		proxied(t, tr, srv, fmt.Sprint("client-", i), "/api/v1/pods")
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if n := len(tr.diffs.scopes); n > maxDiffScopes {
		t.Fatalf("%d scopes kept, want at most %d", n, maxDiffScopes)
	}
	kept := 0
	for _, sv := range tr.diffs.scopes {
		for k, v := range sv.objects {
			kept++
			if v.object != nil || v.rv == "" {
				t.Fatalf("%s kept as %q with %d object bytes; want its resourceVersion alone", k, v.rv, len(v.object))
			}
		}
	}
	if kept != 2*maxDiffScopes {
		t.Fatalf("%d pods kept over %d scopes, want 2 each", kept, len(tr.diffs.scopes))
	}
}

// TestProxyGapAuditProtobuf: the kubelet's path, in protobuf. Its list and
// its watch's frames are read through their transcoders, and its relist
// after a cut shows a pod deleted and one changed unseen.
func TestProxyGapAuditProtobuf(t *testing.T) {
	const list, stream = "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf;stream=watch"
	var js bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js)}, Proxy: true})
	s := &scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	pod := func(name, rv string) []byte { return pbPod(t, name, rv, false, nil) }
	s.thenAs(list, 0, string(pbList(t, "10", pod("web-1", "5"), pod("web-2", "6"), pod("web-3", "7"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a")
	s.thenAs(stream, 0, string(pbFrame("MODIFIED", "Pod", pod("web-1", "11"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&watch=true&resourceVersion=10")
	s.thenAs(list, 0, string(pbList(t, "20", pod("web-1", "11"), pod("web-3", "19"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&resourceVersion=0")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"kubelet deleted shop/web-2 6..@20", "kubelet skipped shop/web-3 7..19@20"}
	if got := missedOf(t, js.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("missed steps:\n%s\nwant:\n%s\n\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), js.String())
	}
}
