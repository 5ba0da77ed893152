package trace_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/page"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// TestProxyTraceTellsAsItComes: in a proxy's trace a watch's events are
// told as the body is read, with no reflector to wait for, each step names
// its client, and the HTML page gives each client a lane.
func TestProxyTraceTellsAsItComes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"type":"ADDED","object":{"metadata":{"name":"p","namespace":"ns","resourceVersion":"5"}}}`+"\n")
	}))
	defer srv.Close()
	var js, html bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js), page.New(&html, page.Run{})}})
	rt := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure)
	for _, client := range []string{"informer-a from 127.0.0.1", "informer-b from 127.0.0.1"} {
		req, _ := http.NewRequestWithContext(trace.WithClient(context.Background(), client), "GET", srv.URL+"/api/v1/pods?watch=true&resourceVersion=4", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		// Told before the body is closed and before any other request:
		// nothing holds it back.
		if got := strings.Count(js.String(), `"kind":"event"`); got != strings.Count(js.String(), `"kind":"request"`) {
			t.Fatalf("after reading %s's watch: %d events told for %d requests\n%s", client, got, strings.Count(js.String(), `"kind":"request"`), js.String())
		}
		if !strings.Contains(js.String(), `"kind":"event","req":`) || !strings.Contains(js.String(), `"client":"`+client+`"`) {
			t.Fatalf("%s's steps are not named:\n%s", client, js.String())
		}
		resp.Body.Close()
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"clients, one lane each", "c1: informer-a from 127.0.0.1", "c2: informer-b from 127.0.0.1", "c1 #1 watch", "c2 #2 watch"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestCollectionPath(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/pods":                            "/api/v1/pods",
		"/api/v1/watch/pods":                      "/api/v1/pods",
		"/api/v1/namespaces/ns/pods":              "/api/v1/namespaces/ns/pods",
		"/api/v1/watch/namespaces/ns/pods":        "/api/v1/namespaces/ns/pods",
		"/apis/apps/v1/deployments":               "/apis/apps/v1/deployments",
		"/apis/apps/v1/namespaces/ns/deployments": "/apis/apps/v1/namespaces/ns/deployments",
		"/api":                            "",
		"/apis":                           "",
		"/api/v1":                         "",
		"/api/v1/namespaces/ns/pods/name": "",
	} {
		if got := trace.CollectionPath(in); got != want {
			t.Errorf("CollectionPath(%q) = %q, want %q", in, got, want)
		}
	}
}
