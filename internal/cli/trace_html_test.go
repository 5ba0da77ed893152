package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fixture"
)

// TestTraceHTML replays the lifecycle fixture (a 410 and a relist) with both
// a JSON trace and the HTML page, and checks the page: it parses as HTML,
// the timeline's model holds a bar per request and a mark per event and
// push of the run (as the JSON trace of the same run counts them, and as
// the recording has them), each with its text for the tooltip, and nothing
// in it points outside the page. The browser test checks how it draws.
func TestTraceHTML(t *testing.T) {
	page := filepath.Join(t.TempDir(), "trace.html")
	trace, _ := replayTrace(t, "lifecycle", "--trace-format", "json", "--trace-html", page)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the page does not parse as HTML: %v", err)
	}
	model := pageModelOf(t, doc)
	marks := map[string]int{}
	for _, m := range model.Marks {
		marks[m.Kind]++
		if m.Title == "" {
			t.Errorf("a %s mark has no title to show on hover", m.Kind)
		}
	}
	for _, l := range model.Lanes {
		if l.Kind == "req" {
			marks["request"]++
		}
	}
	steps := map[string]int{}
	for _, s := range parseJSONTrace(t, trace) {
		steps[s.Kind]++
	}
	rec, err := fixture.Load(fixturePath("lifecycle"))
	if err != nil {
		t.Fatal(err)
	}
	recorded := recordedCounts(t, rec)
	for _, kind := range []string{"request", "event", "push"} {
		if marks[kind] != steps[kind] {
			t.Errorf("%s marks: %d in the page, %d in the trace", kind, marks[kind], steps[kind])
		}
		// The replay may end with one more request, cut short (see stableTrace).
		if got, want := steps[kind], recorded[kind]; got != want && !(kind == "request" && got == want+1) {
			t.Errorf("%s steps: %d in the trace, %d in the recording", kind, got, want)
		}
	}
	if marks["backoff"] == 0 || marks["relist"] == 0 || marks["rv"] == 0 {
		t.Errorf("backoffs, relists and resourceVersions are not all marked: %v", marks)
	}
	checkSelfContained(t, doc)
}

// pageModel is the part of the timeline's model (internal/trace/page's
// model.go) the tests read.
type pageModel struct {
	Span  float64 `json:"span"`
	Lanes []struct {
		Kind  string `json:"k"`
		Name  string `json:"n"`
		Class string `json:"c"`
		End   string `json:"e"`
	} `json:"lanes"`
	Marks []struct {
		Lane  int     `json:"l"`
		U     float64 `json:"u"`
		Kind  string  `json:"k"`
		Label string  `json:"x"`
		Title string  `json:"t"`
	} `json:"marks"`
}

// pageModelOf reads the model from the page's #pw-data script element.
func pageModelOf(t *testing.T, doc *html.Node) pageModel {
	t.Helper()
	nodes := findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") == "pw-data" })
	if len(nodes) != 1 || nodes[0].FirstChild == nil {
		t.Fatalf("the page has %d #pw-data elements, want 1 with the model", len(nodes))
	}
	var m pageModel
	if err := json.Unmarshal([]byte(nodes[0].FirstChild.Data), &m); err != nil {
		t.Fatalf("the page's model: %v", err)
	}
	return m
}

// recordedCounts counts what the recording holds: its requests, the events
// of its successful watches, and the pushes its golden file lists.
func recordedCounts(t *testing.T, rec *fixture.Recording) map[string]int {
	t.Helper()
	c := map[string]int{"request": len(rec.Exchanges)}
	for _, ex := range rec.Exchanges {
		if ex.Request.Query.Get("watch") != "true" || ex.Response.Status != 200 {
			continue
		}
		var body []byte
		for _, ch := range ex.Response.Chunks {
			body = append(body, ch.Data...)
		}
		c["event"] += strings.Count(string(body), `{"type":`)
	}
	pushes, err := os.ReadFile(filepath.Join(fixturePath("lifecycle"), "pushes.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(pushes), "\n") {
		if strings.HasPrefix(line, "push ") {
			c["push"]++
		}
	}
	return c
}

// checkSelfContained fails on anything that would load from outside the
// page: scripts from a file, stylesheets, images, frames, fonts, links, or
// CSS url() and @import; and on a page whose Content-Security-Policy does
// not forbid loading anything.
func checkSelfContained(t *testing.T, doc *html.Node) {
	t.Helper()
	external := map[string]bool{"link": true, "img": true, "image": true, "iframe": true,
		"frame": true, "object": true, "embed": true, "audio": true, "video": true, "source": true,
		"track": true, "base": true, "use": true, "form": true, "a": true}
	refAttrs := map[string]bool{"href": true, "src": true, "srcset": true, "action": true, "formaction": true,
		"poster": true, "data": true, "background": true, "xlink:href": true, "manifest": true, "ping": true}
	csp := findAll(doc, func(n *html.Node) bool { return n.Data == "meta" && attr(n, "http-equiv") == "Content-Security-Policy" })
	if len(csp) != 1 || !strings.HasPrefix(attr(csp[0], "content"), "default-src 'none';") {
		t.Errorf("the page has no Content-Security-Policy forbidding every load by default")
	}
	for _, n := range findAll(doc, func(*html.Node) bool { return true }) {
		where := fmt.Sprintf("<%s>", n.Data)
		if n.Type == html.ElementNode && external[n.Data] {
			t.Errorf("the page has a %s element", where)
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			if a.Namespace != "" {
				key = a.Namespace + ":" + key
			}
			if refAttrs[key] || strings.HasPrefix(key, "xmlns") || strings.Contains(a.Val, "://") {
				t.Errorf("%s has %s=%q, a reference", where, key, a.Val)
			}
			if key == "style" {
				checkCSS(t, where, a.Val)
			}
		}
		if n.Type == html.ElementNode && n.Data == "style" && n.FirstChild != nil {
			checkCSS(t, where, n.FirstChild.Data)
		}
	}
}

func checkCSS(t *testing.T, where, css string) {
	t.Helper()
	for _, bad := range []string{"url(", "@import", "@font-face"} {
		if strings.Contains(strings.ToLower(css), bad) {
			t.Errorf("%s: CSS with %s", where, bad)
		}
	}
}

func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestTracePageRecordsTheRun: the page of a replay with faults says what
// was run: its title names the fixture, and it records the command line,
// the fixture, each fault as the plan read it, and the date.
func TestTracePageRecordsTheRun(t *testing.T) {
	dir := t.TempDir()
	page, scenario := filepath.Join(dir, "trace.html"), filepath.Join(dir, "faults.yaml")
	if err := os.WriteFile(scenario, []byte("faults: [\"cut:events=2,on=watch\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replayTrace(t, "lifecycle", "--trace-html", page, "--fault", "500:on=list", "--faults", scenario)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, n := range findAll(doc, func(n *html.Node) bool { return attr(n, "data-fact") != "" }) {
		facts[attr(n, "data-fact")] = n.FirstChild.Data
	}
	titles := findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "title" })
	if len(titles) == 0 || titles[0].FirstChild.Data != "podwatch trace: lifecycle" {
		t.Errorf("the page's title does not name the fixture")
	}
	cmd := facts["command"]
	if !strings.HasPrefix(cmd, "podwatch watch --replay "+fixturePath("lifecycle")+" --speed 0 --trace-file ") ||
		!strings.HasSuffix(cmd, " --trace-html "+page+" --fault 500:on=list --faults "+scenario) {
		t.Errorf("the page records the command %q", cmd)
	}
	want := map[string]string{
		"fixture": fixturePath("lifecycle"),
		"faults":  "cut:on=watch,events=2; 500:on=list",
		"date":    clitest.Seen.UTC().Format("2006-01-02 15:04:05 MST"),
	}
	for k, v := range want {
		if facts[k] != v {
			t.Errorf("the page records %s %q, want %q", k, facts[k], v)
		}
	}
}

// TestTracePageMarksGaps: a replay whose watch ends in a 410 while a pod
// is deleted relists, and the gap audit's miss is marked on the page: named
// on the stalls and gaps lane, and on the pod's own lane.
func TestTracePageMarksGaps(t *testing.T) {
	page := filepath.Join(t.TempDir(), "trace.html")
	replayTrace(t, "lifecycle", "--trace-html", page, "--fault", "gone-event:on=watch,nth=2")
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	m := pageModelOf(t, doc)
	var named, onPod bool
	for _, mk := range m.Marks {
		if mk.Kind != "missed" {
			continue
		}
		switch l := m.Lanes[mk.Lane]; {
		case l.Kind == "fixed" && mk.Label == "missed web-3":
			named = true
		case l.Kind == "pod" && l.Name == "shop/web-3":
			onPod = true
		}
	}
	if !named || !onPod {
		t.Errorf("the miss of shop/web-3: named on the gaps lane %t, marked on its pod's lane %t", named, onPod)
	}
}
