package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/podwatch/podwatch/internal/trace"
)

// pageModelOf reads the timeline's model out of a page.
func pageModelOf(t *testing.T, page string) pageModel {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	var data string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "id" && a.Val == "pw-data" && n.FirstChild != nil {
				data = n.FirstChild.Data
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	var m pageModel
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("the page's model: %v\n%s", err, data)
	}
	return m
}

// renderPage feeds steps to an HTML sink and returns its page.
func renderPage(t *testing.T, run Run, steps ...trace.Step) string {
	t.Helper()
	var b bytes.Buffer
	s := New(&b, run)
	for _, st := range steps {
		if err := s.Step(st); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func request(req int, at time.Duration, typ, rv string) trace.Step {
	return trace.Step{At: at, Kind: trace.KindRequest, Req: req, Request: &trace.Request{Method: "GET", Path: "/api/v1/pods", Type: typ,
		Params: []trace.Param{{Name: "resourceVersion", Value: rv}}}}
}

func response(req int, at time.Duration, status int) trace.Step {
	return trace.Step{At: at, Kind: trace.KindResponse, Req: req, Response: &trace.Response{Status: status, ContentType: "application/json"}}
}

func event(req int, at time.Duration, typ, name, rv string) trace.Step {
	return trace.Step{At: at, Kind: trace.KindEvent, Req: req, Event: &trace.Event{Type: typ, Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func bodyEnd(req int, at time.Duration, how, err string) trace.Step {
	return trace.Step{At: at, Kind: trace.KindBodyEnd, Req: req, BodyEnd: &trace.BodyEnd{How: how, Error: err}}
}

func decisionStep(at time.Duration, step string, wait time.Duration) trace.Step {
	return trace.Step{At: at, Kind: trace.KindDecision, Decision: &trace.Decision{Step: step, Wait: wait}}
}

func marksOf(m pageModel, kind string) []mark {
	var out []mark
	for _, mk := range m.Marks {
		if mk.Kind == kind {
			out = append(out, mk)
		}
	}
	return out
}

// TestAxisSpreadsStepsAtOneInstant: at --speed 0 a whole run can take no
// time on the trace's clock; its marks must still stand apart, in order.
func TestAxisSpreadsStepsAtOneInstant(t *testing.T) {
	steps := []trace.Step{request(1, 0, "watch", "1"), response(1, 0, 200)}
	for i := range 9 {
		steps = append(steps, event(1, 0, "MODIFIED", "a", "1"), decisionStep(0, "resource-version", 0))
		_ = i
	}
	m := pageModelOf(t, renderPage(t, Run{}, steps...))
	events := marksOf(m, "event")
	if len(events) != 9 {
		t.Fatalf("%d event marks, want 9", len(events))
	}
	for i := 1; i < len(events); i++ {
		if gap := events[i].U - events[i-1].U; gap < 1 {
			t.Errorf("events %d and %d are %.2f slots apart, want at least 1", i-1, i, gap)
		}
	}
	if len(m.Breaks) != 0 {
		t.Errorf("a run without pauses has breaks: %v", m.Breaks)
	}
}

// TestAxisCompressesPauses: eight backoffs in a row, of 1 to 128 s, each
// drawn apart from the next, none taking more than a bounded share of the
// axis, each pause marked with its length.
func TestAxisCompressesPauses(t *testing.T) {
	var steps []trace.Step
	at := time.Duration(0)
	for i := range 8 {
		req := i + 1
		wait := time.Second << i
		steps = append(steps, request(req, at, "list", ""), response(req, at+time.Millisecond, 500),
			bodyEnd(req, at+2*time.Millisecond, "eof", ""), decisionStep(at+3*time.Millisecond, "backoff", wait))
		at += 3*time.Millisecond + wait
		steps = append(steps, decisionStep(at, "list", 0))
	}
	m := pageModelOf(t, renderPage(t, Run{}, steps...))
	backoffs := marksOf(m, "backoff")
	if len(backoffs) != 8 {
		t.Fatalf("%d backoff marks, want 8", len(backoffs))
	}
	for i, b := range backoffs {
		if b.W <= 0 {
			t.Errorf("backoff %d has no width", i)
		}
		if b.W > m.Span/4 {
			t.Errorf("backoff %d takes %.1f of %.1f slots", i, b.W, m.Span)
		}
		if i > 0 {
			prev := backoffs[i-1]
			if prev.U+prev.W >= b.U {
				t.Errorf("backoffs %d and %d run together: [%.1f, %.1f] and %.1f", i-1, i, prev.U, prev.U+prev.W, b.U)
			}
		}
		if !strings.HasPrefix(b.Label, "backoff ") {
			t.Errorf("backoff %d is labelled %q", i, b.Label)
		}
	}
	if len(m.Breaks) != 8 {
		t.Fatalf("%d breaks, want one per pause: %v", len(m.Breaks), m.Breaks)
	}
	if m.Breaks[0].Len != "1s" || m.Breaks[7].Len != "2m8s" {
		t.Errorf("breaks labelled %q ... %q", m.Breaks[0].Len, m.Breaks[7].Len)
	}
	// Longer pauses are wider, but not in proportion.
	w0, w7 := m.Breaks[0].U1-m.Breaks[0].U0, m.Breaks[7].U1-m.Breaks[7].U0
	if !(w7 > w0 && w7 < 4*w0) {
		t.Errorf("a 1 s pause is %.1f slots wide, a 128 s one %.1f", w0, w7)
	}
}

// TestBarsSayHowStreamsEnded: a stream cut by a failed read, one ended by
// an ERROR event with its code, one the client closed mid-run, a refused
// request, one still open, and a watch ended cleanly.
func TestBarsSayHowStreamsEnded(t *testing.T) {
	steps := []trace.Step{
		request(1, 0, "watch", "10"), response(1, 0, 200), event(1, 0, "ADDED", "a", "11"), bodyEnd(1, 0, "error", "unexpected EOF"),
		request(2, 0, "watch", "11"), response(2, 0, 200),
		{Kind: trace.KindEvent, Req: 2, Event: &trace.Event{Type: "ERROR", Status: &trace.Status{Code: 410, Reason: "Expired"}}},
		bodyEnd(2, 0, "error-event", ""),
		request(3, 0, "watch", "11"), response(3, 0, 200), bodyEnd(3, 0, "closed", ""),
		request(4, 0, "list", ""), response(4, 0, 403), bodyEnd(4, 0, "eof", ""),
		request(5, 0, "watch", "12"), response(5, 0, 200), bodyEnd(5, 0, "eof", ""),
		request(6, 0, "watch", "12"), response(6, 0, 200),
	}
	m := pageModelOf(t, renderPage(t, Run{}, steps...))
	want := []struct{ name, class, end string }{
		{"#1 watch rv=10", "cut", "cut: unexpected EOF"},
		{"#2 watch rv=11 (410)", "error", "ERROR (410)"},
		{"#3 watch rv=11", "cut", "closed by the client"},
		{"#4 list (403)", "failed", "(403)"},
		{"#5 watch rv=12", "", ""},
		{"#6 watch rv=12", "open", ""},
	}
	var got []lane
	for _, l := range m.Lanes {
		if l.Kind == laneReq {
			got = append(got, l)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d bars, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Class != w.class || got[i].End != w.end {
			t.Errorf("bar %d: %q class %q end %q, want %q class %q end %q", i+1, got[i].Name, got[i].Class, got[i].End, w.name, w.class, w.end)
		}
	}
}

// TestPodLanes: each pod's life from the pushes, a change mark per push
// that touched it carrying its event's diff, and a gap audit's miss on it.
func TestPodLanes(t *testing.T) {
	modified := event(1, 0, "MODIFIED", "a", "12")
	modified.Event.Diff = []trace.Change{{Op: "replace", Path: "/status/phase", From: json.RawMessage(`"Pending"`), Value: json.RawMessage(`"Running"`)}}
	steps := []trace.Step{
		request(1, 0, "watch", "10"), response(1, 0, 200),
		event(1, 0, "ADDED", "a", "11"), {Kind: trace.KindPush, Push: &trace.Push{Count: 1, Added: []string{"ns/a@11"}}},
		modified, {Kind: trace.KindPush, Push: &trace.Push{Count: 1, Updated: []string{"ns/a@11->12"}}},
		event(1, 0, "ADDED", "b", "13"), {Kind: trace.KindPush, Push: &trace.Push{Count: 2, Added: []string{"ns/b@13"}}},
		event(1, 0, "DELETED", "a", "14"), {Kind: trace.KindPush, Push: &trace.Push{Count: 1, Removed: []string{"ns/a@12"}}},
		{Kind: trace.KindMissed, Missed: &trace.Missed{How: "deleted", Namespace: "ns", Name: "b", From: "13", Explain: "gone while away"}},
	}
	m := pageModelOf(t, renderPage(t, Run{}, steps...))
	pods := map[string]int{}
	for i, l := range m.Lanes {
		if l.Kind == lanePod {
			pods[l.Name] = i
		}
	}
	a, okA := pods["ns/a"]
	b, okB := pods["ns/b"]
	if !okA || !okB || len(pods) != 2 {
		t.Fatalf("pod lanes %v, want ns/a and ns/b", pods)
	}
	if sp := m.Lanes[a].Spans; len(sp) != 1 || sp[0][1] >= m.Span {
		t.Errorf("ns/a's life %v: want one span, ended before the run's end", sp)
	}
	if sp := m.Lanes[b].Spans; len(sp) != 1 || sp[0][1] != m.Span {
		t.Errorf("ns/b's life %v: want one span to the run's end", sp)
	}
	var changes []string
	diffShown := false
	for _, mk := range m.Marks {
		if mk.Lane == a && mk.Kind == "change" {
			changes = append(changes, mk.Class)
			// The text trace's diff line, or the page's own when the text has none.
			diffShown = diffShown || strings.Contains(mk.Title, `/status/phase: "Pending" -> "Running"`)
		}
	}
	if strings.Join(changes, " ") != "ADDED MODIFIED DELETED" {
		t.Errorf("ns/a's changes %v", changes)
	}
	if !diffShown {
		t.Errorf("no change mark of ns/a shows its event's diff")
	}
	missed := 0
	for _, mk := range m.Marks {
		if mk.Kind == "missed" && (mk.Lane == b || strings.Contains(mk.Label, "missed b")) {
			missed++
		}
	}
	if missed != 2 {
		t.Errorf("the miss is marked %d times, want on the pod's lane and the gaps lane", missed)
	}
	if events := marksOf(m, "event"); !strings.Contains(events[1].Title, `/status/phase: "Pending" -> "Running"`) {
		t.Errorf("the MODIFIED event's title lacks its diff:\n%s", events[1].Title)
	}
}

// TestStallMarks: a stall is marked on its watch's bar and on the stalls
// lane, labelled with its verdict, its ages in its details.
func TestStallMarks(t *testing.T) {
	stall := trace.Step{At: 90 * time.Second, Kind: trace.KindStall, Req: 1, Stall: &trace.Stall{SinceByte: 90 * time.Second, SinceEvent: 90 * time.Second,
		SinceBookmark: 90 * time.Second, Bookmarks: true, Timeout: 60 * time.Second, Verdict: "overdue", Explain: "a bookmark was due"}}
	m := pageModelOf(t, renderPage(t, Run{}, request(1, 0, "watch", "5"), response(1, 0, 200), stall))
	stalls := marksOf(m, "stall")
	if len(stalls) != 2 {
		t.Fatalf("%d stall marks, want 2", len(stalls))
	}
	lanes := map[string]bool{}
	for _, s := range stalls {
		lanes[m.Lanes[s.Lane].Kind] = true
		if s.Label != "stall: overdue" || s.Class != "overdue" || !strings.Contains(s.Title, "1m30s") || !strings.Contains(s.Title, "a bookmark was due") {
			t.Errorf("stall mark %+v", s)
		}
	}
	if !lanes[laneReq] || !lanes[laneFixed] {
		t.Errorf("stall marked on lanes %v, want its request's and the stalls lane", lanes)
	}
}

// TestPageRecordsTheRun: the page says what was run, and its title names
// the fixture, or else the server.
func TestPageRecordsTheRun(t *testing.T) {
	start := trace.Step{Kind: trace.KindStart, Start: &trace.Start{Server: "https://10.0.0.1:6443", Watching: "pods"}}
	date := time.Date(2026, 12, 3, 16, 5, 0, 0, time.UTC)
	page := renderPage(t, Run{Command: "podwatch watch --replay fx/lifecycle --fault cut", Fixture: "fx/lifecycle",
		Faults: []string{"cut:events=3", "gone"}, Date: date}, start)
	for _, want := range []string{
		"<title>podwatch trace: lifecycle</title>",
		`<dd data-fact="command">podwatch watch --replay fx/lifecycle --fault cut</dd>`,
		`<dd data-fact="fixture">fx/lifecycle</dd>`,
		`<dd data-fact="faults">cut:events=3; gone</dd>`,
		`<dd data-fact="date">2026-12-03 16:05:00 UTC</dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	page = renderPage(t, Run{}, start)
	if !strings.Contains(page, "<title>podwatch trace: 10.0.0.1:6443</title>") || strings.Contains(page, `data-fact="faults"`) {
		t.Errorf("a run against a server: title or facts wrong:\n%s", page[:min(len(page), 2000)])
	}
}

// TestListingFoldedByRequest: each request's steps, and what happened
// while it was open, go in a <details> of their own, summarised by the
// request and how it ended; what came between requests stays outside.
func TestListingFoldedByRequest(t *testing.T) {
	steps := []trace.Step{
		decisionStep(0, "list", 0),
		request(1, 0, "list", ""), response(1, 0, 200), bodyEnd(1, 0, "eof", ""),
		decisionStep(0, "watch", 0),
		request(2, 0, "watch", "5"), response(2, 0, 200), event(2, 0, "ADDED", "a", "6"),
		{Kind: trace.KindPush, Push: &trace.Push{Count: 1, Added: []string{"ns/a@6"}}},
		{Kind: trace.KindEvent, Req: 2, Event: &trace.Event{Type: "ERROR", Status: &trace.Status{Code: 410}}},
		{Kind: trace.KindBodyEnd, Req: 2, BodyEnd: &trace.BodyEnd{How: "error-event", Status: &trace.Status{Code: 410}}},
		decisionStep(0, "relist", 0),
	}
	var b bytes.Buffer
	writeListing(&b, steps)
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	var details []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "details" {
			details = append(details, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if len(details) != 2 {
		t.Fatalf("%d folds, want one per request", len(details))
	}
	text := func(n *html.Node) string {
		var s strings.Builder
		var w func(*html.Node)
		w = func(n *html.Node) {
			if n.Type == html.TextNode {
				s.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				w(c)
			}
		}
		w(n)
		return s.String()
	}
	watch := text(details[1])
	for _, want := range []string{"#2 ", "→ 200, 2 events, error-event (410)", "push", "#2 ADDED", "#2 end"} {
		if !strings.Contains(watch, want) {
			t.Errorf("the watch's fold lacks %q:\n%s", want, watch)
		}
	}
	if strings.Contains(watch, "relist") || strings.Contains(text(details[0]), "watch") {
		t.Errorf("a step between requests went into a fold:\n%s\n%s", text(details[0]), watch)
	}
}

// TestPodLanesBounded: a node of many pods gets maxPodLanes lanes, and the
// page says how many it left out.
func TestPodLanesBounded(t *testing.T) {
	var added []string
	for i := range maxPodLanes + 7 {
		added = append(added, fmt.Sprintf("ns/p%d@1", i))
	}
	page := renderPage(t, Run{}, trace.Step{Kind: trace.KindPush, Push: &trace.Push{Count: len(added), Added: added}})
	pods := 0
	for _, l := range pageModelOf(t, page).Lanes {
		if l.Kind == lanePod {
			pods++
		}
	}
	if pods != maxPodLanes {
		t.Errorf("%d pod lanes, want %d", pods, maxPodLanes)
	}
	if want := fmt.Sprintf(`<dd data-fact="left out">%d pods drawn a lane each; 7 more left out</dd>`, maxPodLanes); !strings.Contains(page, want) {
		t.Errorf("the page does not say %s", want)
	}
}

// TestHTMLEscapesTheServer gives the page names a hostile server could
// send: they must stay text, never become markup.
func TestHTMLEscapesTheServer(t *testing.T) {
	p := renderPage(t, Run{},
		trace.Step{Kind: trace.KindStart, Start: &trace.Start{Server: "https://x", Watching: `</title><script>alert(1)</script>`}},
		trace.Step{Kind: trace.KindEvent, Req: 1, Event: &trace.Event{Type: `"><script>alert(2)</script>`, Name: "</title><img src=x>"}},
		trace.Step{Kind: trace.KindStop, Stop: &trace.Stop{}})
	doc, err := html.Parse(strings.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	// The page's own scripts are three: the error catcher, the model and
	// the timeline's; none holds the server's script.
	scripts := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "img" {
			t.Fatalf("the server's text became an <img> element")
		}
		if n.Type == html.ElementNode && n.Data == "script" {
			scripts++
			if n.FirstChild != nil && strings.Contains(n.FirstChild.Data, "<script>alert") {
				t.Fatalf("the server's script reached a script element unescaped")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 3 {
		t.Fatalf("the page has %d script elements, want its own 3", scripts)
	}
}
