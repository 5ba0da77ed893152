package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/page"
)

// browserWait bounds one page's run in Chromium: it starts, draws the page
// at six zooms and exits in seconds, but CI's machine is loaded.
const browserWait = 3 * time.Minute

// TestTraceHTMLInBrowser opens trace pages in headless Chromium, 1,600 and
// 800 pixels wide, and reads the verdict of the page's self-test (its
// #pw-selftest hook): at the whole run and at five zooms no two labels
// overlap, the chart fits the window, every event is drawn (one by one or
// counted in a density bin), the wheel, the keys and a click work, and
// nothing was logged to the console (an
// error, an exception, a load the page's Content-Security-Policy refused).
//
// The pages: the lifecycle replay on the tests' fixed clock, where every
// step comes at time 0 (as at --speed 0 on a fast machine); the same replay
// with faults on the wall clock, backoffs and all; a run of 1,600 events
// with stalls, gaps and diffs, too many to draw one by one; and the
// watch-list replay (its initial events) at time 0; and a run that told
// nothing.
func TestTraceHTMLInBrowser(t *testing.T) {
	chromium := findChromium(t)
	dir := t.TempDir()
	pages := []struct {
		name   string
		path   string
		events int
	}{
		{name: "lifecycle at time 0"}, {name: "lifecycle with faults"}, {name: "1,600 events"}, {name: "watch-list at time 0"}, {name: "an empty run"},
	}
	pages[0].path, pages[0].events = replayPage(t, dir, "lifecycle-0.html", "lifecycle", testEnv(clitest.NewSyncBuffer(), clitest.NewSyncBuffer()))
	wallClock := testEnv(clitest.NewSyncBuffer(), clitest.NewSyncBuffer())
	wallClock.Now = time.Now
	pages[1].path, pages[1].events = replayPage(t, dir, "lifecycle-faults.html", "lifecycle", wallClock,
		"--fault", "500:on=list", "--fault", "cut:events=2,on=watch", "--fault", "gone-event:on=watch,nth=2", "--fault", "429:on=list,nth=3")
	pages[2].path, pages[2].events = syntheticPage(t, dir, 1600)
	pages[3].path, pages[3].events = replayPage(t, dir, "watch-list-0.html", "watch-list", testEnv(clitest.NewSyncBuffer(), clitest.NewSyncBuffer()))
	pages[4].path, pages[4].events = syntheticPage(t, dir, 0)
	for _, p := range pages {
		for _, width := range []int{1600, 800} {
			t.Run(fmt.Sprintf("%s at %dpx", p.name, width), func(t *testing.T) {
				v := openInChromium(t, chromium, p.path, width)
				checkVerdict(t, v, width, p.events)
				if p.events > 1000 && v.Views[0].Density == 0 {
					t.Errorf("%d events drawn one by one across %d pixels: want density", p.events, width)
				}
			})
		}
	}
}

// findChromium finds Debian's chromium, or fails saying how to install it:
// the test is never skipped.
func findChromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not on PATH: the browser test needs Debian's chromium package; install it with `apt-get install chromium` (make test does so when it is missing)")
	}
	return path
}

// replayPage replays a fixture at --speed 0 into a page, and returns it
// with the number of events the run told (from its JSON trace).
func replayPage(t *testing.T, dir, name, fixture string, env Env, faults ...string) (string, int) {
	t.Helper()
	page, js := filepath.Join(dir, name), filepath.Join(dir, name+".json")
	args := append([]string{"watch", "--replay", fixturePath(fixture), "--speed", "0", "--trace-file", js, "--trace-format", "json", "--trace-html", page}, faults...)
	ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
	defer cancel()
	if code := env.Run(ctx, args); code != 0 {
		t.Fatalf("podwatch %s: exit %d\n%s", strings.Join(args, " "), code, env.Stderr)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	return page, strings.Count(string(data), `"kind":"event"`)
}

// syntheticPage writes the page of a made-up run of n events: watches of
// a few hundred events each, 10 ms apart, pushes and resourceVersions,
// back-to-back backoffs, a relist, stalls, gaps and diffs.
func syntheticPage(t *testing.T, dir string, n int) (string, int) {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("synthetic-%d.html", n))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sink := page.New(f, page.Run{Command: "synthetic run", Date: time.Now()})
	var at time.Duration
	req, rv := 0, 1000
	step := func(s trace.Step) {
		s.At = at
		if err := sink.Step(s); err != nil {
			t.Fatal(err)
		}
	}
	step(trace.Step{Kind: trace.KindStart, Start: &trace.Start{Server: "https://127.0.0.1:6443", Watching: "pods"}})
	for events := 0; events < n; {
		req++
		step(trace.Step{Kind: trace.KindRequest, Req: req, Request: &trace.Request{Method: "GET", Path: "/api/v1/pods", Type: "watch",
			Params: []trace.Param{{Name: "resourceVersion", Value: fmt.Sprint(rv)}}}})
		step(trace.Step{Kind: trace.KindResponse, Req: req, Response: &trace.Response{Status: 200, ContentType: "application/json"}})
		for i := 0; i < 400 && events < n; i++ {
			at += 10 * time.Millisecond
			rv++
			events++
			pod := fmt.Sprintf("pod-%02d", events%40)
			ev := &trace.Event{Type: "MODIFIED", Namespace: "ns", Name: pod, ResourceVersion: fmt.Sprint(rv)}
			if i%7 == 0 {
				ev.Diff = []trace.Change{{Op: "replace", Path: "/metadata/labels/n", From: json.RawMessage(`"1"`), Value: json.RawMessage(`"2"`)}}
			}
			step(trace.Step{Kind: trace.KindRead, Req: req, Read: &trace.Read{Bytes: 900}})
			step(trace.Step{Kind: trace.KindEvent, Req: req, Event: ev})
			step(trace.Step{Kind: trace.KindPush, Push: &trace.Push{Count: 40, ResourceVersion: fmt.Sprint(rv), Updated: []string{"ns/" + pod + "@1->" + fmt.Sprint(rv)}}})
			step(trace.Step{Kind: trace.KindDecision, Decision: &trace.Decision{Step: "resource-version", ResourceVersion: fmt.Sprint(rv)}})
			if i == 200 {
				at += 70 * time.Second
				step(trace.Step{Kind: trace.KindStall, Req: req, Stall: &trace.Stall{SinceByte: 70 * time.Second, Bookmarks: true, Verdict: "overdue", Explain: "a bookmark was due"}})
			}
		}
		step(trace.Step{Kind: trace.KindBodyEnd, Req: req, BodyEnd: &trace.BodyEnd{How: "error", Error: "unexpected EOF"}})
		for b := range 4 {
			step(trace.Step{Kind: trace.KindDecision, Decision: &trace.Decision{Step: "backoff", Wait: time.Second << b}})
			at += time.Second << b
			req++
			step(trace.Step{Kind: trace.KindRequest, Req: req, Request: &trace.Request{Method: "GET", Path: "/api/v1/pods", Type: "list"}})
			step(trace.Step{Kind: trace.KindResponse, Req: req, Response: &trace.Response{Status: 500}})
		}
		step(trace.Step{Kind: trace.KindDecision, Decision: &trace.Decision{Step: "relist", ResourceVersion: fmt.Sprint(rv)}})
		step(trace.Step{Kind: trace.KindMissed, Missed: &trace.Missed{How: "deleted", Namespace: "ns", Name: "pod-07", From: fmt.Sprint(rv - 3), Explain: "gone while away"}})
	}
	step(trace.Step{Kind: trace.KindStop, Stop: &trace.Stop{Events: n}})
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return path, n
}

// verdict is what the page's self-test writes into #pw-selftest.
type verdict struct {
	Width int `json:"width"`
	Views []struct {
		Name         string   `json:"name"`
		Texts        int      `json:"texts"`
		Overlaps     []string `json:"overlaps"`
		OverlapCount int      `json:"overlapCount"`
		Density      int      `json:"density"`
		SVGWidth     float64  `json:"svgWidth"`
	} `json:"views"`
	// WheelZooms, KeyResets and ClickShows say the controls worked: the
	// wheel zoomed in, "0" showed the whole run again, a click on an event
	// showed its details.
	WheelZooms    bool     `json:"wheelZooms"`
	KeyResets     bool     `json:"keyResets"`
	ClickShows    *bool    `json:"clickShows"`
	EventsInModel int      `json:"eventsInModel"`
	EventsDrawn   int      `json:"eventsDrawn"`
	ScrollWidth   int      `json:"scrollWidth"`
	Errors        []string `json:"errors"`
	// console is what Chromium logged of the page's console.
	console []string
}

var consoleRE = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[^\]]*\].*$`)

// openInChromium loads the page, width pixels wide, with its self-test on,
// and returns the verdict from the DOM Chromium dumps once it has loaded.
func openInChromium(t *testing.T, chromium, page string, width int) verdict {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		fmt.Sprintf("--window-size=%d,1000", width), "--dump-dom", "file://"+page+"#pw-selftest")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	ownProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	doc, err := html.Parse(&stdout)
	if err != nil {
		t.Fatalf("chromium's DOM: %v", err)
	}
	found := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == "pw-selftest" })
	if len(found) != 1 || found[0].FirstChild == nil {
		t.Fatalf("the page wrote no self-test verdict (did its script fail?)\nchromium's console:\n%s", strings.Join(consoleRE.FindAllString(stderr.String(), -1), "\n"))
	}
	var v verdict
	if err := json.Unmarshal([]byte(found[0].FirstChild.Data), &v); err != nil {
		t.Fatalf("the verdict: %v\n%s", err, found[0].FirstChild.Data)
	}
	v.console = consoleRE.FindAllString(stderr.String(), -1)
	return v
}

func checkVerdict(t *testing.T, v verdict, width, events int) {
	t.Helper()
	if len(v.console) > 0 || len(v.Errors) > 0 {
		t.Errorf("console messages:\n%s\nerrors caught by the page: %q", strings.Join(v.console, "\n"), v.Errors)
	}
	if v.Width != width {
		t.Errorf("the window is %d pixels wide, want %d", v.Width, width)
	}
	if v.ScrollWidth > width || len(v.Views) == 0 || v.Views[0].SVGWidth > float64(width) {
		t.Errorf("the page does not fit %d pixels: it is %d wide", width, v.ScrollWidth)
	}
	if len(v.Views) != 5 {
		t.Fatalf("the self-test checked %d views, want 5", len(v.Views))
	}
	for _, view := range v.Views {
		if view.Texts == 0 {
			t.Errorf("%s: no text drawn", view.Name)
		}
		if view.OverlapCount > 0 {
			t.Errorf("%s: %d labels overlap, e.g. %q", view.Name, view.OverlapCount, view.Overlaps)
		}
	}
	if !v.WheelZooms || !v.KeyResets || (events > 0 && (v.ClickShows == nil || !*v.ClickShows)) {
		t.Errorf("the controls: the wheel zoomed in %t, \"0\" showed the whole run %t, a click showed an event's details %v", v.WheelZooms, v.KeyResets, v.ClickShows)
	}
	if v.EventsInModel != events || v.EventsDrawn != events {
		t.Errorf("%d events in the run, %d in the page's model, %d drawn", events, v.EventsInModel, v.EventsDrawn)
	}
}
