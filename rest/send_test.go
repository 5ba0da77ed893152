package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/podwatch/podwatch/rest/meta"
)

// waitTimeout bounds every wait in these tests; reaching it is a failure.
const waitTimeout = 10 * time.Second

// sleepRecorder replaces a client's retry sleep so retry tests take no time.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		io.WriteString(w, "{}")
	})
	for _, tc := range []struct {
		name            string
		cfg             Config
		wantUA, wantTok string
	}{
		{"defaults", Config{}, fmt.Sprintf("podwatch/dev (%s/%s)", runtime.GOOS, runtime.GOARCH), ""},
		{"token and agent", Config{BearerToken: "s3cret", UserAgent: "test/1"}, "test/1", "Bearer s3cret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Host = srv.URL
			c := mustClient(t, tc.cfg)
			if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
				t.Fatalf("Do: %v", err)
			}
			h := <-got
			for k, want := range map[string]string{"Accept": "application/json", "User-Agent": tc.wantUA, "Authorization": tc.wantTok} {
				if h.Get(k) != want {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), want)
				}
			}
		})
	}
}

func TestTokenFileReread(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
	})
	file := filepath.Join(t.TempDir(), "token")
	write := func(tok string, mtime time.Time) {
		if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("one", t0)
	c := mustClient(t, Config{Host: srv.URL, BearerToken: "ignored", BearerTokenFile: file})
	get := func() {
		t.Helper()
		if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
			t.Fatalf("Do: %v", err)
		}
	}
	get()
	get()
	write("second", t0) // new size, same mtime
	get()
	write("third!", t0.Add(time.Second)) // same size, new mtime
	get()
	want := []string{"Bearer one", "Bearer one", "Bearer second", "Bearer third!"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("Authorization headers (-want +got):\n%s", diff)
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get().Resource("pods").Do(context.Background())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Do with the token file gone: got %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestStatusErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		code       int
		header     map[string]string
		body       string
		want       meta.Status
		wantBody   string
		wantRetry  time.Duration
		predicates map[string]bool
	}{
		{
			name: "410 Status",
			code: 410,
			body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}`,
			want: meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
				Message: "too old resource version: 1 (5)", Reason: meta.ReasonExpired, Code: 410},
			predicates: map[string]bool{"IsGone": true},
		},
		{
			name: "403 with details",
			code: 403,
			body: `{"kind":"Status","status":"Failure","message":"pods is forbidden","reason":"Forbidden","details":{"kind":"pods","causes":[{"reason":"X","message":"m","field":"f"}]},"code":403}`,
			want: meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status"}, Status: "Failure", Message: "pods is forbidden",
				Reason: meta.ReasonForbidden, Code: 403,
				Details: &meta.StatusDetails{Kind: "pods", Causes: []meta.StatusCause{{Type: "X", Message: "m", Field: "f"}}}},
			predicates: map[string]bool{"IsForbidden": true},
		},
		{
			name: "429 with retryAfterSeconds, no retries",
			code: 429,
			body: `{"kind":"Status","status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429}`,
			want: meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status"}, Status: "Failure", Message: "slow down",
				Reason: meta.ReasonTooManyRequests, Code: 429, Details: &meta.StatusDetails{RetryAfterSeconds: 3}},
			wantRetry:  3 * time.Second,
			predicates: map[string]bool{},
		},
		{
			name:       "HTML from a proxy",
			code:       502,
			body:       "<html><body><h1>502 Bad Gateway</h1></body></html>",
			want:       meta.Status{Status: "Failure", Message: "Bad Gateway", Code: 502},
			wantBody:   "<html><body><h1>502 Bad Gateway</h1></body></html>",
			predicates: map[string]bool{},
		},
		{
			name:       "404 without a body",
			code:       404,
			want:       meta.Status{Status: "Failure", Message: "Not Found", Reason: meta.ReasonNotFound, Code: 404},
			predicates: map[string]bool{"IsNotFound": true},
		},
		{
			name:       "401",
			code:       401,
			body:       `{"kind":"Status","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`,
			want:       meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status"}, Status: "Failure", Message: "Unauthorized", Reason: meta.ReasonUnauthorized, Code: 401},
			predicates: map[string]bool{"IsUnauthorized": true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.code)
				io.WriteString(w, tc.body)
			})
			c := mustClient(t, Config{Host: srv.URL, MaxRetries: -1, BearerToken: "s3cret"})
			req := c.Get().Namespace("ns").Resource("pods").Limit(5)
			resp, err := req.Stream(context.Background())
			if err == nil {
				resp.Body.Close()
				t.Fatalf("Stream succeeded, want a StatusError")
			}
			se, ok := AsStatusError(err)
			if !ok {
				t.Fatalf("Stream: got %T %v, want a *StatusError", err, err)
			}
			if diff := cmp.Diff(tc.want, se.Status); diff != "" {
				t.Errorf("Status (-want +got):\n%s", diff)
			}
			if se.Body != tc.wantBody {
				t.Errorf("Body = %q, want %q", se.Body, tc.wantBody)
			}
			if se.RetryAfter != tc.wantRetry {
				t.Errorf("RetryAfter = %v, want %v", se.RetryAfter, tc.wantRetry)
			}
			if want := "GET " + srv.URL + "/api/v1/namespaces/ns/pods?limit=5"; se.Where != want {
				t.Errorf("Where = %q, want %q", se.Where, want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q leaks the token", err)
			}
			checkPredicates(t, err, tc.predicates)
		})
	}
}

func checkPredicates(t *testing.T, err error, want map[string]bool) {
	t.Helper()
	for name, pred := range map[string]func(error) bool{
		"IsGone":     IsGone,
		"IsNotFound": IsNotFound, "IsForbidden": IsForbidden, "IsUnauthorized": IsUnauthorized,
	} {
		if got := pred(err); got != want[name] {
			t.Errorf("%s(err) = %v, want %v", name, got, want[name])
		}
	}
}

// countingServer answers the first fail requests with code and Retry-After: 1,
// then 200 with body.
func countingServer(t *testing.T, fail int, code int, body string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if int(n.Add(1)) <= fail {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(code)
			return
		}
		io.WriteString(w, body)
	})
	return srv, &n
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		maxRetries   int
		fail, code   int
		watch        func(*Request) *Request
		wantAttempts int32
		wantWaits    int
		wantOK       bool
	}{
		{"429 list retried", 0, 2, 429, nil, 3, 2, true},
		{"503 with Retry-After retried", 0, 1, 503, nil, 2, 1, true},
		{"retries run out", 2, 10, 429, nil, 3, 2, false},
		{"negative MaxRetries means none", -1, 10, 429, nil, 1, 0, false},
		{"500 without Retry-After is not retried", 0, 1, 500, nil, 1, 0, false},
		{"watch=true not retried", 0, 1, 429, func(r *Request) *Request { return r.Watch(true) }, 1, 0, false},
		{"legacy watch path not retried", 0, 1, 429, func(r *Request) *Request { return r.Prefix("watch") }, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *httptest.Server
			n := new(atomic.Int32)
			if tc.code == 500 {
				srv = newServer(t, func(w http.ResponseWriter, r *http.Request) { n.Add(1); w.WriteHeader(500) })
			} else {
				srv, n = countingServer(t, tc.fail, tc.code, `{"kind":"PodList","items":[]}`)
			}
			c := mustClient(t, Config{Host: srv.URL, MaxRetries: tc.maxRetries})
			rec := &sleepRecorder{}
			c.sleep = rec.sleep
			req := c.Get().Resource("pods")
			if tc.watch != nil {
				req = tc.watch(req)
			}
			body, err := req.Do(context.Background())
			if tc.wantOK != (err == nil) {
				t.Fatalf("Do: got error %v, want success %v", err, tc.wantOK)
			}
			if tc.wantOK && string(body) != `{"kind":"PodList","items":[]}` {
				t.Errorf("body = %q", body)
			}
			if !tc.wantOK {
				if _, ok := AsStatusError(err); !ok {
					t.Errorf("Do: got %v, want a StatusError", err)
				}
			}
			if got := n.Load(); got != tc.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tc.wantAttempts)
			}
			want := make([]time.Duration, tc.wantWaits)
			for i := range want {
				want[i] = time.Second
			}
			if diff := cmp.Diff(want, rec.got(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	attempted := make(chan struct{}, 10)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(429)
		attempted <- struct{}{}
	})
	c := mustClient(t, Config{Host: srv.URL}) // the real sleep
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Get().Resource("pods").Stream(ctx)
		done <- err
	}()
	select {
	case <-attempted:
	case <-time.After(waitTimeout):
		t.Fatal("no request reached the server")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Stream after cancel: got %v, want context.Canceled", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Stream did not return after its context was cancelled")
	}
	if n := len(attempted); n != 0 {
		t.Errorf("%d more attempts after cancel, want 0", n)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/hang-headers":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "/api/v1/hang-body":
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	})
	c := mustClient(t, Config{Host: srv.URL, Timeout: 20 * time.Millisecond})
	ctx := context.Background()

	_, err := c.Get().Resource("hang-headers").Stream(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stream, no headers: got %v, want context.DeadlineExceeded", err)
	}
	_, err = c.Get().Resource("hang-body").Do(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do, body never ends: got %v, want context.DeadlineExceeded", err)
	}
}

// TestTimeoutSparesStreamsAndWatches checks that a slow list body read through
// Stream, and a watch slow to answer, outlive Config.Timeout.
func TestTimeoutSparesStreamsAndWatches(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		time.Sleep(time.Second) // several times the client's Timeout
		io.WriteString(w, "done")
	})
	// The list's headers must still come within Timeout on a loaded machine.
	c := mustClient(t, Config{Host: srv.URL, Timeout: 300 * time.Millisecond})
	for _, tc := range []struct {
		name string
		req  *Request
	}{
		{"list body", c.Get().Resource("pods")},
		{"watch headers", c.Get().Resource("pods").Watch(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.req.Stream(context.Background())
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || string(b) != "done" {
				t.Errorf("body = %q, %v; want \"done\", nil", b, err)
			}
		})
	}
}

func TestStreamCancelEndsBody(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"type":"ADDED"}`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := mustClient(t, Config{Host: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.Get().Resource("pods").Watch(true).Stream(ctx)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 16)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatalf("read first event: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("read after cancel: got %v, want context.Canceled", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("reading the watch body did not end after cancel")
	}
}

func TestTransportError(t *testing.T) {
	// A server that hangs up on every connection. Holding the port, rather
	// than closing a server, keeps another test from taking it meanwhile.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	url := "http://" + ln.Addr().String()
	c := mustClient(t, Config{Host: url})
	_, err = c.Get().Resource("pods").Stream(context.Background())
	if err == nil {
		t.Fatal("Stream to a server that hangs up succeeded")
	}
	if want := "GET " + url + "/api/v1/pods: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if strings.Count(err.Error(), url) != 1 {
		t.Errorf("error %q names the URL more than once", err)
	}
}

func TestVerbAndBody(t *testing.T) {
	type seen struct{ Method, ContentType, Body string }
	got := make(chan seen, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Get("Content-Type"), string(b)}
		w.WriteHeader(201)
		io.WriteString(w, `{"kind":"Pod"}`)
	})
	c := mustClient(t, Config{Host: srv.URL})
	out, err := c.Get().Verb("POST").Namespace("ns").Resource("pods").Body([]byte(`{"kind":"Pod"}`)).Do(context.Background())
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if string(out) != `{"kind":"Pod"}` {
		t.Errorf("answer = %q", out)
	}
	if diff := cmp.Diff(seen{"POST", "application/json", `{"kind":"Pod"}`}, <-got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestWrapTransport(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	var wrapped atomic.Int32
	c := mustClient(t, Config{Host: srv.URL, WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			wrapped.Add(1)
			return rt.RoundTrip(r)
		})
	}})
	if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
		t.Fatalf("Do: %v", err)
	}
	if got := wrapped.Load(); got != 1 {
		t.Errorf("wrapping transport saw %d requests, want 1", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
