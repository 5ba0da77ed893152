package check

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/rest"
)

// testWait bounds every wait for a battery run.
const testWait = 3 * time.Minute

// runBattery runs the battery against url and returns the outcomes by name.
func runBattery(t *testing.T, url string, opts Options) map[string]Outcome {
	t.Helper()
	opts.Config = rest.Config{Host: url}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	outs, err := Run(ctx, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	m := map[string]Outcome{}
	for _, o := range outs {
		m[o.Name] = o
		b, _ := json.Marshal(o.Evidence.Summary)
		t.Logf("%-30s %-15s %s", o.Name, o.Result, b)
	}
	return m
}

// hangingServer accepts every request and answers none (a list), or sends
// a watch's headers and then nothing, ever.
func hangingServer(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// Against a server that never answers nor ends a watch the battery still
// ends within its timeout: every check cut short or not run says so, and
// none passes.
func TestBatteryEndsWithinTimeoutAgainstAHangingServer(t *testing.T) {
	url := hangingServer(t)
	done := make(chan map[string]Outcome, 1)
	go func() { done <- runBattery(t, url, Options{Timeout: 3 * time.Second}) }()
	var outs map[string]Outcome
	select {
	case outs = <-done:
	case <-time.After(testWait):
		t.Fatalf("the battery did not end within %s against a hanging server", testWait)
	}
	if len(outs) != len(Names()) {
		t.Fatalf("%d outcomes, want %d", len(outs), len(Names()))
	}
	for n, o := range outs {
		if o.Result == Pass || o.Evidence.Summary == "" {
			t.Errorf("%s: %s %q, want no pass, and a reason", n, o.Result, o.Evidence.Summary)
		}
	}
}

// Only runs the checks named and those they build on; an unknown name is
// refused before anything is sent.
func TestOnlyRunsNamedChecksAndTheirDependencies(t *testing.T) {
	url := faultServer(t, nil)
	outs := runBattery(t, url, Options{Only: []string{"watch-list-rv"}, WatchSeconds: 2, Grace: 5 * time.Second})
	var got []string
	for _, n := range Names() {
		if _, ok := outs[n]; ok {
			got = append(got, n)
		}
	}
	if want := []string{"list-consistent", "watch-list-initial-events-end", "watch-list-rv"}; !slices.Equal(got, want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
	var unknown *UnknownCheckError
	if _, err := Run(context.Background(), Options{Config: rest.Config{Host: url}, Only: []string{"no-such-check"}}); !errors.As(err, &unknown) {
		t.Fatalf("Run with an unknown name: %v, want *UnknownCheckError", err)
	}
}

// The binary formats: the model apiserver offers protobuf and CBOR, so both
// pass; a server that refuses CBOR with 406, as a v1.37 apiserver with its
// default gates does, leaves content-type-cbor not applicable, not failed.
func TestContentTypeChecksTellOfferedFromRefused(t *testing.T) {
	only := Options{Only: []string{"content-type-protobuf", "content-type-cbor"}, WatchSeconds: 2, Grace: 5 * time.Second}
	outs := runBattery(t, faultServer(t, nil), only)
	for _, n := range only.Only {
		if outs[n].Result != Pass {
			t.Errorf("model server: %s is %s (%s), want pass", n, outs[n].Result, outs[n].Evidence.Summary)
		}
	}
	model := faultServer(t, nil)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Accept"), "application/cbor") {
			apiwire.NotAcceptable("application/json, application/vnd.kubernetes.protobuf").Write(w)
			return
		}
		proxyTo(t, model, w, r)
	}))
	t.Cleanup(refusing.Close)
	outs = runBattery(t, refusing.URL, only)
	if o := outs["content-type-cbor"]; o.Result != NotApplicable || !strings.Contains(o.Evidence.Summary, "406") {
		t.Errorf("a server refusing CBOR: content-type-cbor is %s (%s), want not applicable naming the 406", o.Result, o.Evidence.Summary)
	}
	if o := outs["content-type-protobuf"]; o.Result != Pass {
		t.Errorf("a server refusing CBOR: content-type-protobuf is %s (%s), want pass", o.Result, o.Evidence.Summary)
	}
}

// proxyTo forwards r to the server at base, streaming its answer.
func proxyTo(t *testing.T, base string, w http.ResponseWriter, r *http.Request) {
	u, err := url.Parse(base)
	if err != nil {
		t.Error(err)
		return
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.ServeHTTP(w, r)
}

// A server nobody listens on is one error naming the request, not 23 checks
// failing for the same reason.
func TestUnreachableServerIsOneError(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close() // the port is free now: connections are refused
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	var reported int
	outs, err := Run(ctx, Options{Config: rest.Config{Host: url}, Report: func(Outcome) { reported++ }})
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("Run: err = %v, want an *UnreachableError", err)
	}
	if unreachable.Request != "GET /version" || unreachable.Err == nil {
		t.Errorf("UnreachableError = %+v, want the request and its cause", unreachable)
	}
	if len(outs) != 0 || reported != 0 {
		t.Errorf("%d outcomes returned, %d reported; want none", len(outs), reported)
	}
}

// An interrupted battery (its caller's ctx ended) says of every check it
// did not finish that it was interrupted, not that its --timeout ran out.
func TestInterruptedBatterySaysSo(t *testing.T) {
	asked := make(chan struct{})
	var once sync.Once
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
			return
		}
		once.Do(func() { close(asked) })
		<-r.Context().Done()
	}))
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-asked:
		case <-time.After(testWait):
		}
		cancel() // Ctrl-C, while the first check waits for its list
	}()
	outs, err := Run(ctx, Options{Config: rest.Config{Host: hs.URL}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(outs) != len(Names()) {
		t.Fatalf("%d outcomes, want %d", len(outs), len(Names()))
	}
	for _, o := range outs {
		s := o.Evidence.Summary
		if o.Result == Pass || o.Result == Fail || strings.Contains(s, "--timeout") {
			t.Errorf("%s: %s %q, want not applicable, and not because of the timeout", o.Name, o.Result, s)
		}
		if o.After == nil && !strings.Contains(s, "interrupted") {
			t.Errorf("%s: %q, want it to say it was interrupted", o.Name, s)
		}
	}
}

// A check failed by a refused request carries what Options.Remedy says of
// the refusal; a check that fails otherwise carries none.
func TestRemedyOfARefusal(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Write([]byte(`{"gitVersion":"v1.37.2"}`))
			return
		}
		apiwire.BadRequest("no such scope").Write(w)
	}))
	defer hs.Close()
	outs := runBattery(t, hs.URL, Options{Only: []string{"list-consistent"}, Remedy: func(err error) string {
		if se, ok := rest.AsStatusError(err); ok && se.Status.Code == http.StatusBadRequest {
			return "ask for another scope"
		}
		return ""
	}})
	if o := outs["list-consistent"]; o.Result != Fail || o.Evidence.Remedy != "ask for another scope" {
		t.Fatalf("list-consistent: %s with remedy %q, want a failure with the remedy", o.Result, o.Evidence.Remedy)
	}
}
