package stall

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/page"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// TestSilenceVerdict checks the rules on one watch's ages, against the
// apiserver's cadence: a bookmark about every minute and one about 2 s
// before timeoutSeconds, once its cache has moved past the watch.
func TestSilenceVerdict(t *testing.T) {
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
			now: 250 * time.Second, want: trace.VerdictQuiet},
		{name: "bookmarks asked, nothing moved the cache", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			now: 250 * time.Second, want: trace.VerdictQuiet},
		{name: "past timeoutSeconds with no end", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			now: 306 * time.Second, want: trace.VerdictDead},
		{name: "just past timeoutSeconds: the trip's slack", query: "resourceVersion=10&timeoutSeconds=300",
			now: 304 * time.Second, want: trace.VerdictQuiet},
		{name: "no timeoutSeconds: the server's own limit", query: "resourceVersion=10&allowWatchBookmarks=true",
			now: 59 * time.Minute, want: trace.VerdictQuiet},
		{name: "no timeoutSeconds, past twice the default request timeout", query: "resourceVersion=10",
			now: 61 * time.Minute, want: trace.VerdictDead},
		{name: "moved, bookmark a minute late", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 74 * time.Second, want: trace.VerdictOverdue},
		{name: "moved, bookmark within its slack", query: "resourceVersion=10&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 72 * time.Second, want: trace.VerdictQuiet},
		{name: "moved, the bookmark before the end missing", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}},
			now: 22 * time.Second, want: trace.VerdictOverdue},
		{name: "a periodic bookmark came: the next is a minute on", query: "resourceVersion=10&timeoutSeconds=600&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{5 * time.Second, "BOOKMARK", "12"}, {65 * time.Second, "BOOKMARK", "12"}},
			now: 120 * time.Second, want: trace.VerdictQuiet},
		{name: "moved, the bookmark before the end a little late", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}},
			now: 19 * time.Second, want: trace.VerdictQuiet, says: "1s late"},
		{name: "the bookmark before the end came: nothing more is due", query: "resourceVersion=10&timeoutSeconds=20&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{2 * time.Second, "ADDED", "11"}, {18 * time.Second, "BOOKMARK", "11"}},
			now: 24 * time.Second, want: trace.VerdictQuiet, says: "nothing more is due"},
		{name: "bookmarks not asked: moving earns none", query: "resourceVersion=10&timeoutSeconds=300",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{10 * time.Second, "MODIFIED", "11"}},
			now: 200 * time.Second, want: trace.VerdictQuiet},
		{name: "a watch list's initial events do not move it", query: "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{0, "ADDED", "11"}, {0, "BOOKMARK", "12"}},
			now: 200 * time.Second, want: trace.VerdictQuiet},
		{name: "a watch list's later change does", query: "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=300&allowWatchBookmarks=true",
			events: []struct {
				at      time.Duration
				typ, rv string
			}{{0, "ADDED", "11"}, {0, "BOOKMARK", "12"}, {5 * time.Second, "MODIFIED", "13"}},
			now: 70 * time.Second, want: trace.VerdictOverdue},
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

// tracedStalls is a Tracer with a Check of threshold after, looked at only
// when the test calls check; the clock is the test's.
func tracedStalls(clock *tracetest.Clock, after time.Duration, sinks ...trace.Sink) (*trace.Tracer, *Check) {
	c := New(Options{After: after, Ticks: make(chan time.Time)})
	return trace.New(trace.Options{Sinks: sinks, Clock: clock.Now, Analyses: []trace.Analysis{c}}), c
}

// openWatch sends a watch with query through tr (as client's, when not
// empty) and returns its body.
func openWatch(t *testing.T, tr *trace.Tracer, srv *httptest.Server, client, query string) io.ReadCloser {
	t.Helper()
	ctx := context.Background()
	if client != "" {
		ctx = trace.WithClient(ctx, client)
	}
	return tracetest.OpenWatch(t, tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure), ctx, srv, query)
}

type stallStep struct {
	Kind  trace.Kind
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
	Stop *trace.Stop
}

func stallSteps(t *testing.T, js string) (stalls []stallStep, stop *trace.Stop) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var s stallStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		switch s.Kind {
		case trace.KindStall:
			stalls = append(stalls, s)
		case trace.KindStop:
			stop = s.Stop
		}
	}
	return stalls, stop
}

// TestCheckTells drives a held watch's silence on a hand-moved clock: told
// once past the threshold as quiet, not again while the verdict holds, again
// when it turns dead; a byte ends the silence, and the next is told anew.
func TestCheckTells(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	var js, txt, html bytes.Buffer
	tr, c := tracedStalls(clock, 10*time.Second, trace.JSON(&js), text.New(&txt, text.Options{}), page.New(&html, page.Run{}))
	say := make(chan string)
	srv := tracetest.SilentServer(t, say)
	body := openWatch(t, tr, srv, "", "resourceVersion=10&timeoutSeconds=30")
	defer body.Close()

	clock.Advance(9 * time.Second)
	c.check() // under the threshold: nothing
	clock.Advance(2 * time.Second)
	c.check() // quiet
	clock.Advance(5 * time.Second)
	c.check() // still quiet: not told again
	clock.Advance(20 * time.Second)
	c.check() // 36 s open, timeoutSeconds=30: dead

	say <- "\n" // a byte: the silence ends
	if _, err := body.Read(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	c.check()
	clock.Advance(11 * time.Second)
	c.check() // a new silence, dead at once (the watch is long past its end)
	body.Close()
	clock.Advance(11 * time.Second)
	c.check() // closed: no longer followed
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
	if !strings.Contains(txt.String(), "#1 stall") || !strings.Contains(txt.String(), "quiet: no byte for 11s") {
		t.Errorf("text trace has no stall line:\n%s", txt.String())
	}
	if !strings.Contains(html.String(), "</html>") {
		t.Error("the HTML page was not written whole with stall steps in it")
	}
}

// TestCheckOverdue follows a proxied watch (told as it comes): a change
// shows the server's cache has moved, so a bookmark is due within the
// minute; past that and its slack the stall grows from quiet to overdue.
func TestCheckOverdue(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	var js bytes.Buffer
	c := New(Options{After: 30 * time.Second, Ticks: make(chan time.Time)})
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js)}, Clock: clock.Now, Analyses: []trace.Analysis{c}})
	say := make(chan string)
	srv := tracetest.SilentServer(t, say)
	body := openWatch(t, tr, srv, "informer", "resourceVersion=10&timeoutSeconds=600&allowWatchBookmarks=true")
	defer body.Close()
	clock.Advance(time.Second)
	say <- `{"type":"MODIFIED","object":` + tracetest.PodJSON("a", "11") + "}\n"
	buf := make([]byte, 4096)
	if _, err := body.Read(buf); err != nil {
		t.Fatal(err)
	}
	clock.Advance(31 * time.Second)
	c.check() // quiet: a bookmark is due in about half a minute
	clock.Advance(34 * time.Second)
	c.check() // 65 s since the change: overdue
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	stalls, _ := stallSteps(t, js.String())
	if len(stalls) != 2 || stalls[0].Stall.Verdict != trace.VerdictQuiet || stalls[1].Stall.Verdict != trace.VerdictOverdue {
		t.Fatalf("want a quiet stall then an overdue one:\n%s", js.String())
	}
	if s := stalls[1].Stall; s.SinceEvent != 65000 || s.SinceBookmark != 66000 || !s.Bookmarks {
		t.Errorf("overdue stall %+v: want 65 s since the event, 66 s since the headers for the bookmark", *s)
	}
}

// TestCheckHeldBehindEvent checks the order: a silence after an event the
// reflector has not applied yet is told after that event, never before.
func TestCheckHeldBehindEvent(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	var js bytes.Buffer
	tr, c := tracedStalls(clock, time.Second, trace.JSON(&js))
	say := make(chan string)
	srv := tracetest.SilentServer(t, say)
	body := openWatch(t, tr, srv, "", "resourceVersion=10&timeoutSeconds=60")
	defer body.Close()
	say <- `{"type":"ADDED","object":` + tracetest.PodJSON("a", "11") + "}\n"
	if _, err := body.Read(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	c.check()
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

// TestCheckTicker runs the check on its own goroutine, driven by ticks the
// test sends, and checks that Close stops it.
func TestCheckTicker(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	ticks := make(chan time.Time)
	var js bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js)}, Clock: clock.Now, Analyses: []trace.Analysis{New(Options{After: time.Second, Ticks: ticks})}})
	srv := tracetest.SilentServer(t, make(chan string))
	body := openWatch(t, tr, srv, "", "resourceVersion=10&timeoutSeconds=60&allowWatchBookmarks=true")
	defer body.Close()
	clock.Advance(2 * time.Second)
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
	if len(stalls) != 1 || stalls[0].Stall.Verdict != trace.VerdictQuiet || stop.Stalls != 1 {
		t.Errorf("want one quiet stall:\n%s", js.String())
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestCheckNamesProxiedClient: a proxied watch gone silent past the
// threshold is told as a stall of its client's.
func TestCheckNamesProxiedClient(t *testing.T) {
	clock := tracetest.NewClock(time.Unix(1000, 0))
	var js, txt bytes.Buffer
	c := New(Options{After: 10 * time.Second, Ticks: make(chan time.Time)})
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js), text.New(&txt, text.Options{})}, Clock: clock.Now, Analyses: []trace.Analysis{c}})
	srv := tracetest.SilentServer(t, make(chan string))
	body := openWatch(t, tr, srv, "kubelet from 127.0.0.1", "resourceVersion=10&timeoutSeconds=300")
	defer body.Close()
	clock.Advance(11 * time.Second)
	c.check()
	body.Close()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	var stalls int
	for _, line := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var s struct {
			Kind   trace.Kind
			Client string
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if s.Kind == trace.KindStall {
			stalls++
			if s.Client != "kubelet from 127.0.0.1" {
				t.Errorf("stall names client %q, want the kubelet", s.Client)
			}
		}
	}
	if stalls != 1 {
		t.Fatalf("%d stalls told, want 1:\n%s", stalls, js.String())
	}
	if !strings.Contains(txt.String(), "quiet: no byte for 11s") || !strings.Contains(txt.String(), "client: kubelet from 127.0.0.1") {
		t.Errorf("the text trace's stall does not name its client:\n%s", txt.String())
	}
}
