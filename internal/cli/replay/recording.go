package replay

import (
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
)

// FirstPodsRequests returns the recording's first request for pods, and its
// first list (not watch) request for pods.
func FirstPodsRequests(rec *fixture.Recording) (first, list *fixture.Request) {
	for i := range rec.Exchanges {
		r := &rec.Exchanges[i].Request
		if r.Method != http.MethodGet || !strings.HasSuffix(r.Path, "/pods") {
			continue
		}
		if first == nil {
			first = r
		}
		if list == nil && r.Query.Get("watch") != "true" && !strings.Contains(r.Path, "/watch/") {
			list = r
		}
	}
	return first, list
}

// NamespaceOf is the namespace a pods path names; "" for all.
func NamespaceOf(path string) string {
	_, after, ok := strings.Cut(path, "/namespaces/")
	if !ok {
		return ""
	}
	ns, _, _ := strings.Cut(after, "/")
	return ns
}

// NodeFromSelector finds spec.nodeName=NODE in a field selector, read as
// the fixture servers read one; "" when it names no node or is malformed.
func NodeFromSelector(sel string) string {
	terms, st := apiwire.ParseFieldSelector(sel)
	if st != nil {
		return ""
	}
	for _, t := range terms {
		if t.Field == "spec.nodeName" && t.Op == "=" {
			return t.Value
		}
	}
	return ""
}

// Log sends the replay server's notes (what it made up, which faults
// struck) to the -v 6 log.
func Log(log *base.Logger) func(string, ...any) {
	if !log.V(base.VerboseRequests) {
		return nil
	}
	return func(format string, args ...any) { log.Printf("replay: "+format, args...) }
}
