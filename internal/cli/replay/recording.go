package replay

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/rest/wire"
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

// WatchCommands are the command lines that watch a server at url replaying
// rec as rec's own client watched it: podwatch watch's, with the recorded
// scope, initial state (list or watch list), page size and wire format, and
// kubectl's get --watch of the same pods, in a form that needs no kubeconfig.
// ca, when set, is the file of the certificate a TLS client trusts. Each is
// a line to copy: its words are quoted for a POSIX shell where they must
// be. ok is false when rec holds no request for pods.
func WatchCommands(rec *fixture.Recording, url, ca string) (podwatch, kubectl string, ok bool) {
	first, list := FirstPodsRequests(rec)
	if first == nil {
		return "", "", false
	}
	sc, ok := fixture.ScopeOf(*first)
	if !ok {
		return "", "", false
	}
	pw := []string{"podwatch", "watch", "--server", url}
	kc := []string{"kubectl", "--server", url}
	if ca != "" {
		pw = append(pw, "--certificate-authority", ca)
		kc = append(kc, "--certificate-authority", ca)
	}
	pw = append(pw, sc.WatchFlags()...)
	pw = append(pw, fmt.Sprintf("--watch-list=%t", first.Query.Get("sendInitialEvents") == "true"))
	if list != nil {
		size := list.Query.Get("limit")
		if size == "" {
			size = "0"
		}
		pw = append(pw, "--chunk-size", size)
	}
	if f := recordedFormat(rec); f != wire.JSON {
		pw = append(pw, "--content-type", f.String())
	}
	kc = append(append(append(kc, "get", "pods"), sc.KubectlFlags()...), "--watch")
	return base.ShellLine(pw...), base.ShellLine(kc...), true
}

// recordedFormat is the wire format the recorded client read its pods in:
// that of the first answer for pods with a body of pods (a 2xx; a Status
// may come in JSON whatever was asked).
func recordedFormat(rec *fixture.Recording) wire.Format {
	for i := range rec.Exchanges {
		ex := &rec.Exchanges[i]
		if _, _, pods := apiwire.RoutePods(ex.Request.Path); pods && ex.Response.Status/100 == 2 {
			return ex.Response.Format()
		}
	}
	return wire.JSON
}
