package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

func textOfSteps(t *testing.T, opts Options, steps ...trace.Step) []string {
	t.Helper()
	var out bytes.Buffer
	s := New(&out, opts)
	var per []string
	for _, st := range steps {
		before := out.Len()
		if err := s.Step(st); err != nil {
			t.Fatal(err)
		}
		per = append(per, out.String()[before:])
	}
	return per
}

// The first watch explains every parameter; the second names only what
// changed, each with the opening words of its explanation, and leaves out
// the request's explanation and the headers it sent as before.
func TestExplainOnce(t *testing.T) {
	first, second := watchStep(t, 2, "216", "526"), watchStep(t, 3, "221", "460")
	got := textOfSteps(t, Options{ExplainOnce: true}, first, second)
	for _, p := range first.Request.Params {
		if want := p.Name + "=" + p.Value + ": " + p.Explain; !strings.Contains(got[0], want) {
			t.Errorf("the first watch does not explain %s in full: want %q in\n%s", p.Name, want, got[0])
		}
	}
	wantSecond := []string{
		"   0.000  #3 ->         GET /api/v1/pods?" + second.Request.Query + " (watch)",
		"                         resourceVersion=221: only changes after 221",
		"                         timeoutSeconds=460: the server ends the watch cleanly after 460s",
	}
	if g := strings.Split(strings.TrimSuffix(got[1], "\n"), "\n"); strings.Join(g, "\n") != strings.Join(wantSecond, "\n") {
		t.Fatalf("the second watch:\n got %q\nwant %q", g, wantSecond)
	}
}

// --trace=full (ExplainOnce off) explains everything every time, and the
// explain-once text leaves the steps themselves whole for the other sinks.
func TestExplainEveryTime(t *testing.T) {
	first, second := watchStep(t, 2, "216", "526"), watchStep(t, 3, "221", "460")
	got := textOfSteps(t, Options{}, first, second)
	for i, st := range []trace.Step{first, second} {
		for _, p := range st.Request.Params {
			if want := p.Name + "=" + p.Value + ": " + p.Explain; !strings.Contains(got[i], want) {
				t.Errorf("request %d does not explain %s: want %q in\n%s", i+1, p.Name, want, got[i])
			}
		}
		if !strings.Contains(got[i], "headers: Accept: application/json") {
			t.Errorf("request %d does not show its headers:\n%s", i+1, got[i])
		}
	}

	before, err := json.Marshal(second)
	if err != nil {
		t.Fatal(err)
	}
	textOfSteps(t, Options{ExplainOnce: true}, first, second)
	after, err := json.Marshal(second)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatalf("the text sink changed the step the other sinks get:\nbefore %s\n after %s", before, after)
	}
}

// An explanation that says something new is told in full, although the
// parameter or event was explained before: a list's resourceVersion is not
// a watch's, an initial ADDED is not a later one.
func TestExplainOnceNewMeaning(t *testing.T) {
	list := requestStep(t, 4, url.Values{"resourceVersion": {"224"}, "resourceVersionMatch": {"NotOlderThan"}, "limit": {"500"}})
	initial, later, again := watchListEvents(t)
	got := textOfSteps(t, Options{ExplainOnce: true}, watchStep(t, 2, "216", "526"), list,
		trace.Step{Kind: trace.KindEvent, Req: 5, Event: initial}, trace.Step{Kind: trace.KindEvent, Req: 5, Event: later}, trace.Step{Kind: trace.KindEvent, Req: 5, Event: again})
	var listRV string
	for _, p := range list.Request.Params {
		if p.Name == "resourceVersion" {
			listRV = p.Explain
		}
	}
	if want := "resourceVersion=224: " + listRV; listRV == "" || !strings.Contains(got[1], want) {
		t.Errorf("the list's resourceVersion is not explained in full: want %q in\n%s", want, got[1])
	}
	if !strings.Contains(got[3], later.Explain) {
		t.Errorf("the first ADDED after the initial ones is not explained in full:\n%s", got[3])
	}
	if want := "): " + firstClause(later.Explain) + "\n"; !strings.HasSuffix(got[4], want) {
		t.Errorf("the second one: got %q, want it to end with %q", got[4], want)
	}
}

// A failure quoting the URL of a request the trace has shown names the
// request by its number instead, and refers to the Status told with its
// answer rather than repeating it; --trace=full quotes both whole.
func TestFailureNamesTheRequest(t *testing.T) {
	start := trace.Step{Kind: trace.KindStart, Start: &trace.Start{Server: "https://10.0.0.1:6443"}}
	req := watchStep(t, 4, "224", "374")
	url := "https://10.0.0.1:6443/api/v1/pods?" + req.Request.Query
	end := trace.Step{Kind: trace.KindBodyEnd, Req: 4, BodyEnd: &trace.BodyEnd{How: "eof", Explain: "the whole body arrived",
		Status: &trace.Status{Code: 403, Reason: "Forbidden", Message: "pods is forbidden"}}}
	backoff := trace.Step{Kind: trace.KindDecision, Decision: &trace.Decision{Step: "backoff", Explain: "wait 503ms before trying again",
		Error: "watch pods: GET " + url + ": server answered 403 Forbidden: pods is forbidden"}}
	got := textOfSteps(t, Options{ExplainOnce: true}, start, req, backoff)
	if want := "because: watch pods: GET #4: server answered 403 Forbidden: pods is forbidden\n"; !strings.HasSuffix(got[2], want) {
		t.Errorf("without a Status told: got %q, want it to end with %q", got[2], want)
	}
	got = textOfSteps(t, Options{ExplainOnce: true}, start, req, end, backoff)
	if want := "because: watch pods: GET #4: server answered 403 Forbidden (its Status above)\n"; !strings.HasSuffix(got[3], want) {
		t.Errorf("after its Status: got %q, want it to end with %q", got[3], want)
	}
	full := textOfSteps(t, Options{}, start, req, end, backoff)
	if !strings.Contains(full[3], url) || !strings.Contains(full[3], "Forbidden: pods is forbidden") {
		t.Errorf("--trace=full: got %q, want the URL and the message whole", full[3])
	}
}

// What a text trace remembers to explain once is bounded: past maxTold
// distinct explanations, a new one is told in full and not kept.
func TestToldIsBounded(t *testing.T) {
	o := newTold()
	for i := range maxTold + 100 {
		if !o.first("decision backoff", fmt.Sprintf("server said %s", strings.Repeat("x", i))) {
			t.Fatalf("explanation %d was not new", i)
		}
	}
	if len(o.seen) != maxTold {
		t.Fatalf("%d explanations kept, want the bound %d", len(o.seen), maxTold)
	}
	if !o.first("decision backoff", "server said "+strings.Repeat("x", maxTold+50)) {
		t.Fatal("an explanation not kept was told briefly the second time")
	}
	if o.first("decision backoff", "server said ") {
		t.Fatal("a kept explanation was told in full again")
	}
}
