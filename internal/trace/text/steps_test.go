package text

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// The text sink's tests tell steps as a Tracer makes them, explanations
// and all: these helpers record them.

// capture is a Sink that keeps the steps it is told.
type capture []trace.Step

func (c *capture) Step(s trace.Step) error { *c = append(*c, s); return nil }
func (c *capture) Close() error            { return nil }

// recorded runs do against a Tracer on a stopped clock, with a server that
// answers every request with body, and returns the steps told.
func recorded(t *testing.T, body string, do func(rt http.RoundTripper, in trace.Instrument[*tracetest.Pod], url string)) capture {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	var c capture
	tr := trace.New(trace.Options{Sinks: []trace.Sink{&c}, Clock: func() time.Time { return time.Time{} }})
	in := trace.NewInstrument[*tracetest.Pod](tr)
	do(tracetest.Transport(in.Configure), in, srv.URL)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return c
}

// send sends a GET of url through rt, with an Accept header, and reads
// the answer whole.
func send(t *testing.T, rt http.RoundTripper, url string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// requestStep is the step a Tracer tells of a GET of pods with q, as
// request number n.
func requestStep(t *testing.T, n int, q url.Values) trace.Step {
	t.Helper()
	steps := recorded(t, "", func(rt http.RoundTripper, _ trace.Instrument[*tracetest.Pod], u string) {
		send(t, rt, u+"/api/v1/pods?"+q.Encode())
	})
	for _, s := range steps {
		if s.Kind == trace.KindRequest {
			s.Req = n
			return s
		}
	}
	t.Fatalf("no request step told: %+v", steps)
	return trace.Step{}
}

// watchStep is a watch request as the tracer tells it, its parameters
// explained.
func watchStep(t *testing.T, req int, rv, timeout string) trace.Step {
	return requestStep(t, req, url.Values{"allowWatchBookmarks": {"true"}, "fieldSelector": {"spec.nodeName=node-a"},
		"resourceVersion": {rv}, "timeoutSeconds": {timeout}, "watch": {"true"}})
}

// watchListEvents are the events of a watch list as the Tracer tells them
// once a reflector applies them: an initial ADDED (applied with the replace
// at the bookmark that ends them), and two ADDED after it.
func watchListEvents(t *testing.T) (initial, later, again *trace.Event) {
	t.Helper()
	body := tracetest.WatchEvent("ADDED", tracetest.PodJSON("a", "1")) +
		tracetest.WatchEvent("BOOKMARK", `{"metadata":{"resourceVersion":"1","annotations":{"`+cache.InitialEventsEndAnnotation+`":"true"}}}`) +
		tracetest.WatchEvent("ADDED", tracetest.PodJSON("b", "2")) + tracetest.WatchEvent("ADDED", tracetest.PodJSON("c", "3"))
	steps := recorded(t, body, func(rt http.RoundTripper, in trace.Instrument[*tracetest.Pod], u string) {
		send(t, rt, u+"/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
		store := in.WrapStore(cache.NewStore(cache.MetaNamespaceKey[*tracetest.Pod]))
		a, b, c := &tracetest.Pod{}, &tracetest.Pod{}, &tracetest.Pod{}
		a.Name, b.Name, c.Name = "a", "b", "c"
		if err := store.Replace([]*tracetest.Pod{a}, "1"); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*tracetest.Pod{b, c} {
			if err := store.Add(p); err != nil {
				t.Fatal(err)
			}
		}
	})
	var added []*trace.Event
	for _, s := range steps {
		if s.Kind == trace.KindEvent && s.Event.Type == "ADDED" {
			added = append(added, s.Event)
		}
	}
	if len(added) != 3 || !added[0].Initial || added[1].Initial {
		t.Fatalf("want an initial ADDED and two later ones, got %+v", added)
	}
	return added[0], added[1], added[2]
}
