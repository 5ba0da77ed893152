package proxycmd

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/proxy"
)

// proxyRecorder keeps one fixture recorder per proxy client, each saved as
// DIR/<client>/recording.json when the proxy stops.
type proxyRecorder struct {
	dir    string
	filter []string // path prefixes to keep; none keeps every path

	mu   sync.Mutex
	recs []clientRecording
}

type clientRecording struct {
	client proxy.Client
	rec    *fixture.Recorder
}

// wrap puts a recorder for c above next; requests whose path the filter
// leaves out go by it.
func (pr *proxyRecorder) wrap(c proxy.Client, next http.RoundTripper) http.RoundTripper {
	rec := fixture.NewRecorder(next)
	pr.mu.Lock()
	pr.recs = append(pr.recs, clientRecording{client: c, rec: rec})
	pr.mu.Unlock()
	return recordFiltered{pr: pr, rec: rec, next: next}
}

// keeps reports whether the filter keeps path: a path equal to a prefix, or
// under it.
func (pr *proxyRecorder) keeps(path string) bool {
	if len(pr.filter) == 0 {
		return true
	}
	for _, f := range pr.filter {
		f = strings.TrimSuffix(f, "/")
		if path == f || strings.HasPrefix(path, f+"/") || strings.HasPrefix(path, f+"?") {
			return true
		}
	}
	return false
}

type recordFiltered struct {
	pr   *proxyRecorder
	rec  *fixture.Recorder
	next http.RoundTripper
}

func (r recordFiltered) RoundTrip(req *http.Request) (*http.Response, error) {
	// An upgrade (exec, attach, port-forward) is a connection, not an
	// exchange a fixture can hold: it passes unrecorded.
	if r.pr.keeps(req.URL.Path) && req.Header.Get("Upgrade") == "" {
		return r.rec.RoundTrip(req)
	}
	return r.next.RoundTrip(req)
}

// save writes each client's recording that holds an exchange; call it once
// every request has ended, so that each body has its end.
func (pr *proxyRecorder) save(log *base.Logger) error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	var errs []error
	for _, cr := range pr.recs {
		r := cr.rec.Recording()
		if len(r.Exchanges) == 0 {
			continue
		}
		r.Comment = "recorded by podwatch proxy: " + cr.client.String()
		dir := filepath.Join(pr.dir, cr.client.Name)
		if err := r.Save(dir); err != nil {
			errs = append(errs, fmt.Errorf("record %s: %w", cr.client, err))
			continue
		}
		n := len(r.Exchanges)
		log.Printf("podwatch: wrote the recording of %s, %d %s, to %s", cr.client, n, base.Plural(n, "exchange", "exchanges"), filepath.Join(dir, fixture.FileName))
	}
	return errors.Join(errs...)
}
