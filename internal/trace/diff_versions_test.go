package trace

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/podwatch/podwatch/rest/wire"
)

func versionJSON(name, rv, image string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q},"spec":{"image":%q}}`, name, rv, image)
}

// modified diffs a MODIFIED event of pod name in scope s and returns it.
func modified(v *versions, s, name, rv, image string) *Event {
	e := &Event{Type: "MODIFIED", Namespace: "ns", Name: name, ResourceVersion: rv}
	// A watch event's object has a kind, a list's items do not.
	v.event(s, e, []byte(`{"kind":"Pod","apiVersion":"v1",`+versionJSON(name, rv, image)[1:]))
	return e
}

// TestVersionsKeepWhatTheClientHolds: a list replaces a scope (a pod gone
// from it is no longer diffed against), a DELETED drops its pod, scopes are
// apart, and their number is bounded.
func TestVersionsKeepWhatTheClientHolds(t *testing.T) {
	v := newVersions(DiffFields, false)
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
	v.event("a", &Event{Type: "DELETED", Namespace: "ns", Name: "web"}, []byte(versionJSON("web", "4", "x:2")))
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
	for i := range 2 * maxDiffScopes {
		list(fmt.Sprint("client-", i), versionJSON("web", "1", "x:1"))
	}
	if len(v.scopes) > maxDiffScopes {
		t.Fatalf("%d scopes kept, want at most %d", len(v.scopes), maxDiffScopes)
	}
	if e := modified(v, fmt.Sprint("client-", 2*maxDiffScopes-1), "web", "2", "x:2"); e.DiffFrom != "1" {
		t.Fatalf("the newest scope was dropped")
	}
}

func TestDiffScope(t *testing.T) {
	q := url.Values{"fieldSelector": {"spec.nodeName=a"}, "watch": {"true"}}
	if diffScope("c", "/api/v1/pods", q) != diffScope("c", "/api/v1/watch/pods", q) {
		t.Errorf("a legacy /watch/ path and ?watch=true are in different scopes")
	}
	for _, other := range []string{diffScope("d", "/api/v1/pods", q), diffScope("c", "/api/v1/namespaces/x/pods", q), diffScope("c", "/api/v1/pods", nil)} {
		if other == diffScope("c", "/api/v1/pods", q) {
			t.Errorf("another client, namespace or selector shares the scope %q", other)
		}
	}
	if diffScope("c", "/api/v1/namespaces/x/pods/web", q) != "" {
		t.Errorf("a request for one object has a scope")
	}
}
