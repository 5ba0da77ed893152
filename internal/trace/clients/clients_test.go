package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// TestRevealed runs one proxied client's requests through a trace on a
// hand-moved clock: each decision is told, named after the client, just
// ahead of the request that reveals it, and another client's history is
// its own.
func TestRevealed(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	var js bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js)}, Clock: clock.Now, Analyses: []trace.Analysis{New()}})
	s := &tracetest.Scripted{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	rt := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure)
	send := func(client, pathQuery string) {
		tracetest.Get(t, rt, trace.WithClient(context.Background(), client), srv.URL+pathQuery)
	}
	const informer = "informer from 127.0.0.1"
	s.Then(0, tracetest.PodList("10", ""))
	send(informer, "/api/v1/pods")
	s.Then(0, tracetest.WatchEvent("ADDED", tracetest.PodJSON("a", "11")))
	send(informer, "/api/v1/pods?watch=true&resourceVersion=10")
	s.Then(0, "")
	send(informer, "/api/v1/pods?watch=true&resourceVersion=11") // a resume from the last version carried
	s.Then(http.StatusInternalServerError, `{"kind":"Status","code":500}`)
	send(informer, "/api/v1/pods?watch=true&resourceVersion=9")
	clock.Advance(1500 * time.Millisecond)
	s.Then(0, tracetest.PodList("12", ""))
	send(informer, "/api/v1/pods?resourceVersion=0") // after its backoff: a relist
	s.Then(0, tracetest.PodList("12", ""))
	send("kubectl from 127.0.0.1", "/api/v1/pods") // another client: nothing to reveal
	clock.Advance(time.Second)
	s.Then(0, tracetest.WatchEvent("BOOKMARK", `{"metadata":{"resourceVersion":"12"}}`))
	send(informer, "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	s.Then(0, "")
	send(informer, "/api/v1/pods/web") // one object: not of a collection
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, line := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var st struct {
			Kind     trace.Kind
			Req      int
			Client   string
			Decision *trace.Decision
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Kind == trace.KindRequest:
			got = append(got, "request by "+strings.Fields(st.Client)[0])
		case st.Decision != nil:
			got = append(got, strings.Fields(st.Client)[0]+" "+st.Decision.Step+": "+st.Decision.Explain)
		}
	}
	want := []string{
		"request by informer",
		"request by informer",
		"informer resume: it watches /api/v1/pods again from resourceVersion 11, the last one its watches carried: a resume, with no relist",
		"request by informer",
		"informer resume: it watches /api/v1/pods again from resourceVersion 9; the last one its watches carried was 11: a resume",
		"request by informer",
		"informer backoff: its last request for /api/v1/pods failed, and it waited 1.5s before asking again: its backoff",
		"informer relist: it lists /api/v1/pods again after watching it: its reflector starts over, taking any state the server holds (resourceVersion=0: its watch cache, maybe stale)",
		"request by informer",
		"request by kubectl",
		"informer relist: it asks for the state of /api/v1/pods as a streaming watch list: its reflector starts over",
		"request by informer",
		"request by informer",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decisions (-want +got):\n%s\n%s", diff, js.String())
	}
}
