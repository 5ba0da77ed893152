package versions

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest/wire"
)

func versionJSON(name, rv, image string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q},"spec":{"image":%q}}`, name, rv, image)
}

// modified diffs a MODIFIED event of pod name in scope s and returns it.
func modified(v *Versions, s, name, rv, image string) *trace.Event {
	e := &trace.Event{Type: "MODIFIED", Namespace: "ns", Name: name, ResourceVersion: rv}
	// A watch event's object has a kind, a list's items do not.
	v.event(s, e, []byte(`{"kind":"Pod","apiVersion":"v1",`+versionJSON(name, rv, image)[1:]))
	return e
}

// TestVersionsKeepWhatTheClientHolds: a list replaces a scope (a pod gone
// from it is no longer diffed against), a DELETED drops its pod, scopes are
// apart, and their number is bounded.
func TestVersionsKeepWhatTheClientHolds(t *testing.T) {
	v := New(Options{Diff: DiffFields})
	list := func(s string, pods ...string) {
		body := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[`
		for i, p := range pods {
			if i > 0 {
				body += ","
			}
			body += p
		}
		v.listed(s, []byte(body+"]}"), wire.JSON, true)
	}
	list("a", versionJSON("web", "1", "x:1"), versionJSON("db", "2", "y:1"))
	if e := modified(v, "a", "web", "3", "x:2"); e.DiffFrom != "1" || len(e.Diff) != 1 {
		t.Fatalf("after a list: diff from %q, %v; want one change from 1", e.DiffFrom, e.Diff)
	}
	if e := modified(v, "b", "web", "3", "x:2"); e.DiffFrom != "" || e.Diff != nil {
		t.Fatalf("another scope was diffed against scope a's version: %+v", e)
	}
	v.event("a", &trace.Event{Type: "DELETED", Namespace: "ns", Name: "web"}, []byte(versionJSON("web", "4", "x:2")))
	if e := modified(v, "a", "web", "5", "x:3"); e.DiffFrom != "" {
		t.Fatalf("diffed against a deleted pod's version %s", e.DiffFrom)
	}
	list("a", versionJSON("web", "6", "x:3"))
	if e := modified(v, "a", "db", "7", "y:2"); e.DiffFrom != "" {
		t.Fatalf("a pod the relist no longer holds was diffed against (from %s)", e.DiffFrom)
	}
	// A list in two pages: the second adds to the first.
	list("p", versionJSON("web", "1", "x:1"))
	v.listed("p", []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[`+versionJSON("db", "1", "y:1")+`]}`), wire.JSON, false)
	for _, name := range []string{"web", "db"} {
		if e := modified(v, "p", name, "2", "z"); e.DiffFrom != "1" {
			t.Fatalf("%s of a paged list was not diffed against", name)
		}
	}
	for i := range 2 * maxScopes {
		list(fmt.Sprint("client-", i), versionJSON("web", "1", "x:1"))
	}
	if len(v.scopes) > maxScopes {
		t.Fatalf("%d scopes kept, want at most %d", len(v.scopes), maxScopes)
	}
	if e := modified(v, fmt.Sprint("client-", 2*maxScopes-1), "web", "2", "x:2"); e.DiffFrom != "1" {
		t.Fatalf("the newest scope was dropped")
	}
}

func TestScopeOf(t *testing.T) {
	q := url.Values{"fieldSelector": {"spec.nodeName=a"}, "watch": {"true"}}
	if scopeOf("c", "/api/v1/pods", q) != scopeOf("c", "/api/v1/watch/pods", q) {
		t.Errorf("a legacy /watch/ path and ?watch=true are in different scopes")
	}
	for _, other := range []string{scopeOf("d", "/api/v1/pods", q), scopeOf("c", "/api/v1/namespaces/x/pods", q), scopeOf("c", "/api/v1/pods", nil)} {
		if other == scopeOf("c", "/api/v1/pods", q) {
			t.Errorf("another client, namespace or selector shares the scope %q", other)
		}
	}
	if scopeOf("c", "/api/v1/namespaces/x/pods/web", q) != "" {
		t.Errorf("a request for one object has a scope")
	}
}

// TestVersionsBoundedForTheAudit: without --diff, what a proxy's trace
// keeps for the gap audit is each pod's resourceVersion alone, in no more
// scopes than the bound, however many clients come.
func TestVersionsBoundedForTheAudit(t *testing.T) {
	v := New(Options{})
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(io.Discard)}, Analyses: []trace.Analysis{v}})
	s := &tracetest.Scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	rt := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure)
	for i := range 2 * maxScopes {
		s.Then(0, tracetest.PodList("10", "", tracetest.PodJSON("a", "5"), tracetest.PodJSON("b", "6")))
		tracetest.Get(t, rt, trace.WithClient(context.Background(), fmt.Sprint("client-", i)), srv.URL+"/api/v1/pods")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(v.scopes); n > maxScopes {
		t.Fatalf("%d scopes kept, want at most %d", n, maxScopes)
	}
	kept := 0
	for _, sv := range v.scopes {
		for k, ver := range sv.objects {
			kept++
			if ver.object != nil || ver.rv == "" {
				t.Fatalf("%s kept as %q with %d object bytes; want its resourceVersion alone", k, ver.rv, len(ver.object))
			}
		}
	}
	if kept != 2*maxScopes {
		t.Fatalf("%d pods kept over %d scopes, want 2 each", kept, len(v.scopes))
	}
}
