package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
)

// scripted serves one canned answer at a time and records the requests' headers.
type scripted struct {
	mu      sync.Mutex
	status  int
	body    string
	headers []string
}

func (s *scripted) set(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.headers = append(s.headers, r.Header.Get("X-Node"))
	w.WriteHeader(s.status)
	w.Write([]byte(s.body))
}

// TestHTTPSourcePolls drives the source one fetch at a time through the same
// server: what each answer sends and reports.
func TestHTTPSourcePolls(t *testing.T) {
	podJSON := string(readTestdata(t, "static-web.json"))
	podList := string(readTestdata(t, "podlist.yaml"))
	steps := []struct {
		name    string
		status  int
		body    string
		send    bool
		pods    []string
		reports []string // the reported errors' kinds
	}{
		{name: "a JSON pod", status: 200, body: podJSON, send: true, pods: []string{"default/web-node-a"}},
		{name: "the same body again sends nothing", status: 200, body: podJSON},
		{name: "a YAML pod list", status: 200, body: podList, send: true, pods: []string{"edge/cache-node-a", "default/proxy-node-a"}},
		{name: "a 500 is reported, the state stays", status: 500, body: "oops", reports: []string{"status 500"}},
		{name: "after the 500, the same list sends nothing", status: 200, body: podList},
		{name: "a YAML pod", status: 200, body: manifest("solo", "img"), send: true, pods: []string{"default/solo-node-a"}},
		{name: "an empty body is an empty SET", status: 200, body: "", send: true, pods: []string{}, reports: []string{"empty"}},
		{name: "another empty body sends nothing", status: 200, body: ""},
		{name: "an invalid pod sends nothing", status: 200, body: "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", reports: []string{"invalid"}},
		{name: "garbage sends nothing", status: 200, body: "{not json", reports: []string{"syntax"}},
		{name: "a list keeps its valid items", status: 200, send: true, pods: []string{"default/ok-node-a"},
			body:    `{"kind":"PodList","items":[{"metadata":{"name":"ok"},"spec":{"containers":[{"name":"c","image":"i"}]}},{"kind":"Service","metadata":{"name":"svc"}}]}`,
			reports: []string{"invalid"}},
		{name: "a 404 is reported", status: 404, reports: []string{"status 404"}},
	}
	srv := &scripted{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var c collector
	src := NewHTTP(ts.URL, node, HTTPOptions{Header: http.Header{"X-Node": {node}}, Report: c.report})
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			srv.set(st.status, st.body)
			pods, send := src.poll(context.Background())
			if send != st.send {
				t.Fatalf("send = %v, want %v (pods %v)", send, st.send, names(pods))
			}
			if send {
				if diff := cmp.Diff(st.pods, names(pods)); diff != "" {
					t.Fatalf("pods (-want +got):\n%s", diff)
				}
			}
			var kinds []string
			for _, err := range c.take() {
				kinds = append(kinds, errorKind(err))
			}
			if diff := cmp.Diff(st.reports, kinds); diff != "" {
				t.Fatalf("reports (-want +got):\n%s", diff)
			}
		})
	}
	for i, h := range srv.headers {
		if h != node {
			t.Fatalf("request %d: X-Node = %q, want %q", i, h, node)
		}
	}
}

// errorKind names what a reported error is, through errors.As and errors.Is.
func errorKind(err error) string {
	var se *HTTPStatusError
	var ip *InvalidPodError
	var me *ManifestError
	switch {
	case errors.As(err, &se):
		return "status " + strconv.Itoa(se.StatusCode)
	case errors.Is(err, ErrEmptyBody):
		return "empty"
	case errors.As(err, &ip):
		return "invalid"
	case errors.As(err, &me):
		return "syntax"
	}
	return "other: " + err.Error()
}

func TestHTTPSourceUIDsFollowTheURL(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(readTestdata(t, "static-web.json"))
	}))
	defer ts.Close()
	get := func(url string) string {
		pods, ok := NewHTTP(url, node, HTTPOptions{}).poll(context.Background())
		if !ok || len(pods) != 1 {
			t.Fatalf("poll %s = %v, %v; want one pod", url, names(pods), ok)
		}
		p := pods[0]
		if len(p.Spec.Tolerations) != 0 || p.Metadata.Annotations[podconfig.HashAnnotation] != p.Metadata.UID {
			t.Fatalf("http pod tolerations %v, hash %q uid %q; want no toleration and hash = uid",
				p.Spec.Tolerations, p.Metadata.Annotations[podconfig.HashAnnotation], p.Metadata.UID)
		}
		return p.Metadata.UID
	}
	a, b := get(ts.URL+"/a"), get(ts.URL+"/b")
	if a == b {
		t.Fatalf("two URLs gave one uid %s", a)
	}
	if again := get(ts.URL + "/a"); again != a {
		t.Fatalf("uid for the same URL changed: %s, then %s", a, again)
	}
}

func TestHTTPSourceRun(t *testing.T) {
	srv := &scripted{status: 500}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	reported := make(chan error, 100)
	src := NewHTTP(ts.URL, node, HTTPOptions{Period: 5 * time.Millisecond, Report: func(_ string, err error) {
		select {
		case reported <- err:
		default:
		}
	}})
	out := make(chan podconfig.PodUpdate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); src.Run(ctx, out) }()

	select {
	case err := <-reported:
		var se *HTTPStatusError
		if !errors.As(err, &se) || se.StatusCode != 500 {
			t.Fatalf("reported %v, want an HTTPStatusError 500", err)
		}
	case <-time.After(wait):
		t.Fatalf("no report of the 500 within %v", wait)
	}
	// Retried until the server answers.
	srv.set(200, manifest("web", "img"))
	waitForSET(t, out, "default/web-node-a")
	srv.set(200, "")
	waitForSET(t, out)

	cancel()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatalf("HTTP.Run still running %v after its ctx ended", wait)
	}
}
