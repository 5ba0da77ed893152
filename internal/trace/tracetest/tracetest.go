// Package tracetest holds what the tests of the trace's packages share:
// servers that answer as a test scripts them, a clock moved by hand, the
// least pod a reflector keeps, protobuf messages built from the schema,
// and a way to send requests through a Tracer's transport. It imports no
// package of the trace, so that the trace's own tests may use it too.
package tracetest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
)

// Pod is the least object a reflector can keep.
type Pod struct{ meta.ObjectMeta }

func (p *Pod) Meta() *meta.ObjectMeta { return &p.ObjectMeta }

// DecodePod reads a Pod's name, namespace and resourceVersion from JSON.
func DecodePod(data []byte) (*Pod, error) {
	var v struct {
		Metadata struct {
			Name, Namespace, ResourceVersion string
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return &Pod{meta.ObjectMeta{Name: v.Metadata.Name, Namespace: v.Metadata.Namespace, ResourceVersion: v.Metadata.ResourceVersion}}, nil
}

// PodJSON is a pod of namespace ns as JSON.
func PodJSON(name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}`, name, rv)
}

// Clock is a clock a test moves by hand.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Transport is the RoundTripper a configure func (an Instrument's
// Configure) puts over http.DefaultTransport: a request sent through it is
// traced as a rest.Client's would be.
func Transport(configure func(*rest.Config)) http.RoundTripper {
	var cfg rest.Config
	configure(&cfg)
	return cfg.WrapTransport(http.DefaultTransport)
}

// SilentServer answers every request with JSON headers and then only what
// the test sends on say, until the request ends.
func SilentServer(t testing.TB, say <-chan string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush()
		for {
			select {
			case s := <-say:
				io.WriteString(w, s)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// OpenWatch sends a watch of pods with query through rt and returns its
// body, for the test to read and close.
func OpenWatch(t testing.TB, rt http.RoundTripper, ctx context.Context, srv *httptest.Server, query string) io.ReadCloser {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/pods?watch=true&"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Body
}

// Get sends a GET of url with ctx through rt and reads its body whole.
func Get(t testing.TB, rt http.RoundTripper, ctx context.Context, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// Scripted is a server that answers each request with the next of its
// answers, in order, and fails a request it has no answer for.
type Scripted struct {
	mu      sync.Mutex
	answers []answer
}

type answer struct {
	status      int
	body        string
	contentType string // default JSON
}

func (s *Scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

// Then scripts the next answer in JSON: status (0: 200) and body.
func (s *Scripted) Then(status int, body string) { s.ThenAs("", status, body) }

// ThenAs scripts the next answer with its Content-Type.
func (s *Scripted) ThenAs(contentType string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, answer{status, body, contentType})
}

// PodList is a PodList in JSON at rv, with a continue token when cont is
// not empty.
func PodList(rv, cont string, pods ...string) string {
	items := ""
	for i, p := range pods {
		if i > 0 {
			items += ","
		}
		items += p
	}
	return fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":%q,"continue":%q},"items":[%s]}`, rv, cont, items)
}

// WatchEvent is one line of a JSON watch.
func WatchEvent(typ, object string) string {
	return `{"type":"` + typ + `","object":` + object + "}\n"
}

// Buffer is a sink's writer that a test may read while the trace writes
// to it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
