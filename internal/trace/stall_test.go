package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStallVerdict checks the rules on one watch's ages, against the
// apiserver's cadence: a bookmark about every minute and one about 2 s
// before timeoutSeconds, once its cache has moved past the watch.
func TestStallVerdict(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tests := []struct {
		name  string
		query string
		// events come at their offsets: type and resourceVersion
		events []struct {
			at      time.Duration
			typ, rv string
		}
		now  time.Duration
		want string
		says string // in the explanation, when set
	}{
		{name: "no bookmarks asked, long silence", query: "resourceVersion=10&timeoutSeconds=300",
			now: 250 * time.Second, want: VerdictQuiet},
		{name: "bookmarks asked, nothing moved the cache", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			now: 250 * time.Second, want: VerdictQuiet},
		{name: "past timeoutSeconds with no end", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			now: 306 * time.Second, want: VerdictDead},
		{name: "just past timeoutSeconds: the trip's slack", query: "resourceVersion=10&timeoutSeconds=300",
			now: 304 * time.Second, want: VerdictQuiet},
		{name: "no timeoutSeconds: the server's own limit", query: "resourceVersion=10&allowWatchBookmarks=true",
			now: 59 * time.Minute, want: VerdictQuiet},
		{name: "no timeoutSeconds, past twice the default request timeout", query: "resourceVersion=10",
			now: 61 * time.Minute, want: VerdictDead},
		{name: "moved, bookmark a minute late", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 74 * time.Second, want: VerdictOverdue},
		{name: "moved, bookmark within its slack", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 72 * time.Second, want: VerdictQuiet},
		{name: "moved, the bookmark before the end missing", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}},
			now: 22 * time.Second, want: VerdictOverdue},
		{name: "a periodic bookmark came: the next is a minute on", query: "resourceVersion=10&timeoutSeconds=600&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{5 * time.Second, "BOOKMARK", "12"}, {65 * time.Second, "BOOKMARK", "12"}},
			now: 120 * time.Second, want: VerdictQuiet},
		{name: "moved, the bookmark before the end a little late", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}},
			now: 19 * time.Second, want: VerdictQuiet, says: "1s late"},
		{name: "the bookmark before the end came: nothing more is due", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}, {18 * time.Second, "BOOKMARK", "11"}},
			now: 24 * time.Second, want: VerdictQuiet, says: "nothing more is due"},
		{name: "bookmarks not asked: moving earns none", query: "resourceVersion=10&timeoutSeconds=300",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 200 * time.Second, want: VerdictQuiet},
		{name: "a watch list's initial events do not move it", query: "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{0, "ADDED", "11"}, {0, "BOOKMARK", "12"}},
			now: 200 * time.Second, want: VerdictQuiet},
		{name: "a watch list's later change does", query: "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{0, "ADDED", "11"}, {0, "BOOKMARK", "12"}, {5 * time.Second, "MODIFIED", "13"}},
			now: 70 * time.Second, want: VerdictOverdue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			s := NewSilence(q)
			s.Opened(t0)
			for _, e := range tt.events {
				s.Byte(at(e.at))
				end := ""
				if e.typ == "BOOKMARK" && q.Get("sendInitialEvents") == "true" && e.at == 0 {
					end = "true"
				}
				s.Event(at(e.at), e.typ, e.rv, end == "true")
			}
			st := s.Judge(at(tt.now))
			if st.Verdict != tt.want {
				t.Errorf("verdict %q (%s), want %q", st.Verdict, st.Explain, tt.want)
			}
			if st.Explain == "" || !strings.Contains(st.Explain, tt.says) {
				t.Errorf("explanation %q, want it to say %q", st.Explain, tt.says)
			}
		})
	}
}

// fakeClock is a Tracer's clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// silentServer answers a watch with headers and then only what the test
// sends on say, until the request ends.
func silentServer(t *testing.T, say <-chan string) *httptest.Server {
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

// openWatch sends a watch with query through tr and returns its body.
func openWatch(t *testing.T, tr *Tracer, srv *httptest.Server, query string) io.ReadCloser {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+"/api/v1/pods?watch=true&"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	resp, err := tr.transport(http.DefaultTransport).RoundTrip(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Body
}

type stallStep struct {
	Kind  Kind
	Req   int
	Stall *struct {
		Verdict       string  `json:"verdict"`
		Bookmarks     bool    `json:"allowWatchBookmarks"`
		SinceByte     float64 `json:"sinceByte_ms"`
		SinceEvent    float64 `json:"sinceEvent_ms"`
		SinceBookmark float64 `json:"sinceBookmark_ms"`
		Timeout       float64 `json:"timeout_ms"`
		Explain       string  `json:"explain"`
	}
	Stop *Stop
}

func stallSteps(t *testing.T, js string) (stalls []stallStep, stop *Stop) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var s stallStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		switch s.Kind {
		case KindStall:
			stalls = append(stalls, s)
		case KindStop:
			stop = s.Stop
		}
	}
	return stalls, stop
}

// TestStallTold drives a held watch's silence on a hand-moved clock: told
// once past the threshold as quiet, not again while the verdict holds, again
// when it turns dead; a byte ends the silence, and the next is told anew.
func TestStallTold(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var js, text, page bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js), Text(&text, false), HTML(&page)}, Clock: clock.Now, StallAfter: 10 * time.Second, StallTicks: make(chan time.Time)})
	say := make(chan string)
	srv := silentServer(t, say)
	body := openWatch(t, tr, srv, "resourceVersion=10&timeoutSeconds=30")
	defer body.Close()

	clock.advance(9 * time.Second)
	tr.checkStalls() // under the threshold: nothing
	clock.advance(2 * time.Second)
	tr.checkStalls() // quiet
	clock.advance(5 * time.Second)
	tr.checkStalls() // still quiet: not told again
	clock.advance(20 * time.Second)
	tr.checkStalls() // 36 s open, timeoutSeconds=30: dead

	say <- "\n" // a byte: the silence ends
	if _, err := body.Read(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	tr.checkStalls()
	clock.advance(11 * time.Second)
	tr.checkStalls() // a new silence, dead at once (the watch is long past its end)
	body.Close()
	clock.advance(11 * time.Second)
	tr.checkStalls() // closed: no longer followed
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	stalls, stop := stallSteps(t, js.String())
	var verdicts []string
	for _, s := range stalls {
		verdicts = append(verdicts, s.Stall.Verdict)
		if s.Req != 1 {
			t.Errorf("stall of request %d, want 1", s.Req)
		}
	}
	if got, want := strings.Join(verdicts, " "), "quiet dead dead"; got != want {
		t.Fatalf("stall verdicts %q, want %q:\n%s", got, want, js.String())
	}
	if s := stalls[0].Stall; s.SinceByte != 11000 || s.SinceEvent != 11000 || s.Timeout != 30000 || s.Bookmarks {
		t.Errorf("first stall %+v: want 11 s since the headers, timeout 30 s, no bookmarks", *s)
	}
	if s := stalls[2].Stall; s.SinceByte != 11000 || s.SinceEvent != 47000 {
		t.Errorf("third stall %+v: want 11 s since the byte, 47 s since the headers (no event)", *s)
	}
	if stop == nil || stop.Stalls != 3 {
		t.Errorf("summary %+v, want 3 stalls", stop)
	}
	if !strings.Contains(text.String(), "#1 stall") || !strings.Contains(text.String(), "quiet: no byte for 11s") {
		t.Errorf("text trace has no stall line:\n%s", text.String())
	}
	if !strings.Contains(page.String(), "</html>") {
		t.Error("the HTML page was not written whole with stall steps in it")
	}
}

// TestStallOverdue follows a proxied watch (told as it comes): a change
// shows the server's cache has moved, so a bookmark is due within the
// minute; past that and its slack the stall grows from quiet to overdue.
func TestStallOverdue(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var js bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js)}, Clock: clock.Now, Proxy: true, StallAfter: 30 * time.Second, StallTicks: make(chan time.Time)})
	say := make(chan string)
	srv := silentServer(t, say)
	body := openWatch(t, tr, srv, "resourceVersion=10&timeoutSeconds=600&allowWatchBookmarks=true")
	defer body.Close()
	clock.advance(time.Second)
	say <- `{"type":"MODIFIED","object":` + podJSON("a", "11") + "}\n"
	buf := make([]byte, 4096)
	if _, err := body.Read(buf); err != nil {
		t.Fatal(err)
	}
	clock.advance(31 * time.Second)
	tr.checkStalls() // quiet: a bookmark is due in about half a minute
	clock.advance(34 * time.Second)
	tr.checkStalls() // 65 s since the change: overdue
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	stalls, _ := stallSteps(t, js.String())
	if len(stalls) != 2 || stalls[0].Stall.Verdict != VerdictQuiet || stalls[1].Stall.Verdict != VerdictOverdue {
		t.Fatalf("want a quiet stall then an overdue one:\n%s", js.String())
	}
	if s := stalls[1].Stall; s.SinceEvent != 65000 || s.SinceBookmark != 66000 || !s.Bookmarks {
		t.Errorf("overdue stall %+v: want 65 s since the event, 66 s since the headers for the bookmark", *s)
	}
}

// TestStallHeldBehindEvent checks the order: a silence after an event the
// reflector has not applied yet is told after that event, never before.
func TestStallHeldBehindEvent(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var js bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js)}, Clock: clock.Now, StallAfter: time.Second, StallTicks: make(chan time.Time)})
	say := make(chan string)
	srv := silentServer(t, say)
	body := openWatch(t, tr, srv, "resourceVersion=10&timeoutSeconds=60")
	defer body.Close()
	say <- `{"type":"ADDED","object":` + podJSON("a", "11") + "}\n"
	if _, err := body.Read(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	clock.advance(2 * time.Second)
	tr.checkStalls()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var s stallStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, string(s.Kind))
	}
	if got, want := strings.Join(kinds, " "), "request response read event stall stop"; got != want {
		t.Errorf("steps %q, want %q", got, want)
	}
}

// TestStallTicker runs the check on its own goroutine, driven by ticks the
// test sends, and checks that Close stops it.
func TestStallTicker(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	ticks := make(chan time.Time)
	var js bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&js)}, Clock: clock.Now, StallAfter: time.Second, StallTicks: ticks})
	srv := silentServer(t, make(chan string))
	body := openWatch(t, tr, srv, "resourceVersion=10&timeoutSeconds=60&allowWatchBookmarks=true")
	defer body.Close()
	clock.advance(2 * time.Second)
	// The second tick is taken only once the first one's check is done.
	for range 2 {
		select {
		case ticks <- time.Time{}:
		case <-time.After(time.Minute):
			t.Fatal("the stall check took no tick within a minute")
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case ticks <- time.Time{}:
		t.Fatal("the stall check still takes ticks after Close")
	default:
	}
	stalls, stop := stallSteps(t, js.String())
	if len(stalls) != 1 || stalls[0].Stall.Verdict != VerdictQuiet || stop.Stalls != 1 {
		t.Errorf("want one quiet stall:\n%s", js.String())
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
