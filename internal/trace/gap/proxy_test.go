package gap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/clients"
	"github.com/podwatch/podwatch/internal/trace/page"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/internal/trace/versions"
)

// proxied sends a request of client's through tr and reads its body whole.
func proxied(t *testing.T, tr *trace.Tracer, srv *httptest.Server, client, pathQuery string) {
	t.Helper()
	rt := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure)
	tracetest.Get(t, rt, trace.WithClient(context.Background(), client), srv.URL+pathQuery)
}

// proxyTracer is a proxy's Tracer with the gap audit of its clients.
func proxyTracer(sinks ...trace.Sink) *trace.Tracer {
	audit := New(nil)
	return trace.New(trace.Options{Sinks: sinks,
		Analyses: []trace.Analysis{clients.New(), versions.New(versions.Options{Relisted: audit.Relisted}), audit}})
}

const initialEventsEndBookmark = `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"20","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"

type missedStep struct {
	Kind   trace.Kind
	Client string
	Missed *trace.Missed
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
		if s.Kind == trace.KindMissed {
			m := s.Missed
			out = append(out, fmt.Sprintf("%s %s %s/%s %s..%s@%s", s.Client, m.How, m.Namespace, m.Name, m.From, m.To, m.State))
		}
	}
	return out
}

// TestAuditOfProxiedClients: two clients of one collection, through a proxy's
// trace without --diff. Each relists after its watch was cut: kubectl with
// a paged list after a 410, client-go with a watch list. Each is told
// exactly what it missed, by its own history (client-go saw a change
// kubectl did not, and kubectl saw a DELETED), once the new state has come
// whole (the list's last page, the initial-events-end bookmark).
func TestAuditOfProxiedClients(t *testing.T) {
	var js, txt, html bytes.Buffer
	tr := proxyTracer(trace.JSON(&js), text.New(&txt, text.Options{}), page.New(&html, page.Run{}))
	s := &tracetest.Scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	const kubectl, clientGo = "kubectl from 127.0.0.1", "client-go from 127.0.0.1"

	s.Then(0, tracetest.PodList("10", "", tracetest.PodJSON("a", "5"), tracetest.PodJSON("b", "6"), tracetest.PodJSON("c", "7")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods")
	s.Then(0, tracetest.PodList("10", "", tracetest.PodJSON("a", "5"), tracetest.PodJSON("b", "6")))
	proxied(t, tr, srv, clientGo, "/api/v1/pods")
	// kubectl's watch sees a change of a and c's deletion; client-go's
	// sees a change of b. Both are cut (the body just ends).
	s.Then(0, tracetest.WatchEvent("MODIFIED", tracetest.PodJSON("a", "11"))+tracetest.WatchEvent("DELETED", tracetest.PodJSON("c", "12")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?watch=true&resourceVersion=10")
	s.Then(0, tracetest.WatchEvent("MODIFIED", tracetest.PodJSON("b", "13")))
	proxied(t, tr, srv, clientGo, "/api/v1/pods?watch=true&resourceVersion=10")
	// kubectl resumes, is told its version is gone, and relists in pages.
	s.Then(http.StatusGone, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`)
	proxied(t, tr, srv, kubectl, "/api/v1/pods?watch=true&resourceVersion=12")
	s.Then(0, tracetest.PodList("20", "more", tracetest.PodJSON("a", "15")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?limit=1")
	if got := missedOf(t, js.String()); len(got) != 0 {
		t.Fatalf("missed told before the relist's last page: %q", got)
	}
	s.Then(0, tracetest.PodList("20", "", tracetest.PodJSON("d", "18")))
	proxied(t, tr, srv, kubectl, "/api/v1/pods?limit=1&continue=more")
	// client-go relists with a watch list.
	s.Then(0, tracetest.WatchEvent("ADDED", tracetest.PodJSON("a", "15"))+tracetest.WatchEvent("ADDED", tracetest.PodJSON("b", "13"))+tracetest.WatchEvent("ADDED", tracetest.PodJSON("d", "18"))+initialEventsEndBookmark)
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
		if !strings.Contains(txt.String(), want) {
			t.Errorf("the text trace lacks %q:\n%s", want, txt.String())
		}
	}
	if !strings.Contains(html.String(), "missed b") || !strings.Contains(html.String(), "</html>") {
		t.Errorf("the HTML page does not mark the missed pods")
	}
}

// TestAuditOfProxiedUnknownState: a relist whose state the trace could not
// read, or that was cut before it came whole, tells nothing missed rather
// than every pod deleted; the next complete relist is audited against what
// the client held before the first.
func TestAuditOfProxiedUnknownState(t *testing.T) {
	var js bytes.Buffer
	tr := proxyTracer(trace.JSON(&js))
	s := &tracetest.Scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.Then(0, tracetest.PodList("10", "", tracetest.PodJSON("a", "5"), tracetest.PodJSON("b", "6")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods")
	s.Then(0, tracetest.WatchEvent("MODIFIED", tracetest.PodJSON("a", "11")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&resourceVersion=10")
	// A watch list cut before its bookmark, then a list not JSON.
	s.Then(0, tracetest.WatchEvent("ADDED", tracetest.PodJSON("a", "15")))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	s.Then(0, `{"kind":"PodList","items":[`)
	proxied(t, tr, srv, "kubelet", "/api/v1/pods")
	if got := missedOf(t, js.String()); len(got) != 0 {
		t.Fatalf("missed told of a state never seen whole: %q", got)
	}
	s.Then(0, tracetest.WatchEvent("ADDED", tracetest.PodJSON("a", "11"))+initialEventsEndBookmark)
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(missedOf(t, js.String()), "\n"), "kubelet deleted ns/b 6..@20"; got != want {
		t.Fatalf("missed steps %q, want %q\n%s", got, want, js.String())
	}
}

// TestAuditOfProxiedProtobuf: the kubelet's path, in protobuf. Its list and
// its watch's frames are read through their transcoders, and its relist
// after a cut shows a pod deleted and one changed unseen.
func TestAuditOfProxiedProtobuf(t *testing.T) {
	const list, stream = "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf;stream=watch"
	var js bytes.Buffer
	tr := proxyTracer(trace.JSON(&js))
	s := &tracetest.Scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	pod := func(name, rv string) []byte { return tracetest.PBPod(t, name, rv, false, nil) }
	s.ThenAs(list, 0, string(tracetest.PBList(t, "10", pod("web-1", "5"), pod("web-2", "6"), pod("web-3", "7"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a")
	s.ThenAs(stream, 0, string(tracetest.PBFrame("MODIFIED", "Pod", pod("web-1", "11"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&watch=true&resourceVersion=10")
	s.ThenAs(list, 0, string(tracetest.PBList(t, "20", pod("web-1", "11"), pod("web-3", "19"))))
	proxied(t, tr, srv, "kubelet", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&resourceVersion=0")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"kubelet deleted shop/web-2 6..@20", "kubelet skipped shop/web-3 7..19@20"}
	if got := missedOf(t, js.String()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("missed steps:\n%s\nwant:\n%s\n\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), js.String())
	}
}
