package trace

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// maxHTMLSteps bounds what an HTML sink keeps for its page; a longer run's
// page shows the first steps and says how many it left out.
const maxHTMLSteps = 200_000

// HTML returns a Sink that keeps the steps and, on Close, writes to w one
// self-contained page: an SVG timeline of the run (each request a bar from
// its sending to the end of its body, reads and events as ticks on it,
// coloured by type; resourceVersions, reflector decisions and pushes on
// lanes above), every mark's details in a tooltip (an SVG title), and the
// text trace below. The page references nothing outside itself: no scripts,
// styles, fonts or images are loaded. Close does not close w.
func HTML(w io.Writer) Sink { return &htmlSink{w: w} }

type htmlSink struct {
	w       io.Writer
	steps   []Step
	dropped int
}

func (s *htmlSink) Step(st Step) error {
	if len(s.steps) >= maxHTMLSteps && st.Kind != KindStop {
		s.dropped++
		return nil
	}
	s.steps = append(s.steps, st)
	return nil
}

func (s *htmlSink) Close() error {
	var b bytes.Buffer
	s.page(&b)
	_, err := s.w.Write(b.Bytes())
	return err
}

// Layout of the timeline, in pixels.
const (
	svgWidth   = 1400
	labelWidth = 230
	rightPad   = 30
	axisY      = 24
	rvY        = 56
	decisionY  = 92
	pushY      = 124
	connY      = 152
	rowTop     = 176
	rowHeight  = 24
)

const pageStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.5em 0 .4em}
.summary{margin:.2em 0 1em}.legend span{display:inline-block;margin-right:1.2em}
.sw{display:inline-block;width:.9em;height:.9em;vertical-align:-.1em;margin-right:.3em;border-radius:2px}
svg{border:1px solid #ddd;background:#fcfcfc}svg text{font:11px ui-monospace,monospace;fill:#333}
svg .lane{fill:#555;font-weight:bold}svg .format{font-size:9px;fill:#777}svg .grid{stroke:#eee}svg .bar{fill:#dde6f3;stroke:#8aa4c8}
svg .bar.failed{fill:#f6d8d8;stroke:#c88}svg .read{stroke:#999}svg .frame{stroke:#6a8fd0}
svg .rv{fill:#444}svg .rvtick{stroke:#aaa}svg .push{fill:#222}svg .replace{fill:#2e8b57}
svg .relist{fill:#c0392b}svg .backoff{fill:#f0a030;opacity:.7}svg .step{fill:#8e44ad}
svg .ADDED{fill:#2e9d4a}svg .MODIFIED{fill:#d4a20b}svg .DELETED{fill:#c0392b}svg .BOOKMARK{fill:#2f6fd0}svg .ERROR{fill:#7b1010}
svg g:hover>rect,svg g:hover>circle,svg g:hover>path{stroke:#000;stroke-width:1.5}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font:12px/1.35 ui-monospace,monospace}`

// timeline is what the page needs to know of the run.
type timeline struct {
	span  time.Duration
	start *Start
	stop  *Stop
	reqs  map[int]*reqBar
	order []int
	hasH2 bool
	// clients are a proxy's clients, in the order they came; each has a
	// lane of its own, its requests' bars together.
	clients []string
}

type reqBar struct {
	n        int
	label    string
	format   string // the answer's Content-Type: the wire format of its body
	from, to time.Duration
	ended    bool
	failed   bool
	row      int
	title    []string
	client   string
}

func (s *htmlSink) timeline() *timeline {
	tl := &timeline{reqs: map[int]*reqBar{}}
	for _, st := range s.steps {
		tl.span = max(tl.span, st.At)
		switch st.Kind {
		case KindStart:
			tl.start = st.Start
		case KindStop:
			tl.stop = st.Stop
		case KindConn, KindFrame:
			tl.hasH2 = true
		}
		if st.Req == 0 {
			continue
		}
		b := tl.reqs[st.Req]
		if b == nil {
			b = &reqBar{n: st.Req, from: st.At, to: st.At, row: len(tl.order), client: st.Client}
			tl.reqs[st.Req] = b
			tl.order = append(tl.order, st.Req)
		}
		b.to = max(b.to, st.At)
		switch st.Kind {
		case KindRequest:
			b.label = fmt.Sprintf("#%d %s", st.Req, st.Request.Type)
			if rv := paramValue(st.Request, "resourceVersion"); rv != "" {
				b.label += " rv=" + rv
			}
			b.title = append(b.title, stepTitle(st))
		case KindResponse:
			b.format = st.Response.ContentType
			if st.Response.Error != "" || st.Response.Status < 200 || st.Response.Status > 299 {
				b.failed = true
				b.label += fmt.Sprintf(" (%d)", st.Response.Status)
			}
			b.title = append(b.title, stepTitle(st))
		case KindBodyEnd:
			b.ended = true
			b.title = append(b.title, stepTitle(st))
		}
	}
	tl.laneByClient()
	for _, b := range tl.reqs {
		if !b.ended && !b.failed {
			b.to = tl.span // still open when the trace ended
		}
	}
	return tl
}

// laneByClient puts each proxy client's bars together, in the order the
// clients came, and names the client's lane on each bar.
func (tl *timeline) laneByClient() {
	lane := map[string]int{}
	for _, n := range tl.order {
		if c := tl.reqs[n].client; c != "" {
			if _, ok := lane[c]; !ok {
				lane[c] = len(tl.clients)
				tl.clients = append(tl.clients, c)
			}
		}
	}
	if len(tl.clients) == 0 {
		return
	}
	sort.SliceStable(tl.order, func(i, j int) bool {
		return lane[tl.reqs[tl.order[i]].client] < lane[tl.reqs[tl.order[j]].client]
	})
	for row, n := range tl.order {
		b := tl.reqs[n]
		b.row = row
		if b.client != "" {
			b.label = fmt.Sprintf("c%d %s", lane[b.client]+1, b.label)
		}
	}
}

// formatName is how a bar names its body's format: the Content-Type with
// Kubernetes' long vendor prefix shortened.
func formatName(contentType string) string {
	if contentType == "" {
		return "no body format"
	}
	return strings.Replace(contentType, "application/vnd.kubernetes.", "k8s ", 1)
}

func paramValue(r *Request, name string) string {
	for _, p := range r.Params {
		if p.Name == name && !p.Absent {
			return p.Value
		}
	}
	return ""
}

// x places a time on the plot.
func (tl *timeline) x(at time.Duration) float64 {
	w := float64(svgWidth - labelWidth - rightPad)
	if tl.span <= 0 {
		return labelWidth
	}
	return labelWidth + w*float64(at)/float64(tl.span)
}

func (s *htmlSink) page(b *bytes.Buffer) {
	tl := s.timeline()
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>podwatch trace</title>\n<style>\n" + pageStyle + "\n</style>\n</head>\n<body>\n<h1>podwatch trace</h1>\n")
	if tl.start != nil {
		fmt.Fprintf(b, "<p class=\"summary\">of %s: %s", esc(tl.start.Server), esc(tl.start.Watching))
	} else {
		b.WriteString("<p class=\"summary\">")
	}
	if st := tl.stop; st != nil {
		fmt.Fprintf(b, "<br>%d requests, %d events, %d pushes, %d relists, %d backoffs in %s%s", st.Requests, st.Events, st.Pushes, st.Relists, st.Backoffs, dur(st.Duration), esc(watchBytesText(st)))
	}
	if s.dropped > 0 {
		fmt.Fprintf(b, "<br>only the first %d steps are drawn; %d more were left out", maxHTMLSteps, s.dropped)
	}
	b.WriteString("</p>\n")
	if len(tl.clients) > 0 {
		b.WriteString("<p class=\"summary\">Clients, one lane each:")
		for i, c := range tl.clients {
			fmt.Fprintf(b, "<br>c%d: %s", i+1, esc(c))
		}
		b.WriteString("</p>\n")
	}
	b.WriteString(legend)
	s.svg(b, tl)
	b.WriteString("<h2>Every step</h2>\n<pre>")
	var text bytes.Buffer
	ts := Text(&text, false)
	for _, st := range s.steps {
		_ = ts.Step(st) // a bytes.Buffer does not fail
	}
	b.WriteString(esc(text.String()))
	b.WriteString("</pre>\n</body>\n</html>\n")
}

const legend = `<p class="legend">Hover over any mark for its details.
<span><i class="sw" style="background:#2e9d4a"></i>ADDED</span><span><i class="sw" style="background:#d4a20b"></i>MODIFIED</span><span><i class="sw" style="background:#c0392b"></i>DELETED</span><span><i class="sw" style="background:#2f6fd0"></i>BOOKMARK</span><span><i class="sw" style="background:#7b1010"></i>ERROR</span><span><i class="sw" style="background:#999"></i>body read</span><span><i class="sw" style="background:#f0a030"></i>backoff</span><span><i class="sw" style="background:#c0392b"></i>relist (triangle)</span><span><i class="sw" style="background:#2e8b57"></i>replace</span><span><i class="sw" style="background:#222"></i>push</span></p>
`

func (s *htmlSink) svg(b *bytes.Buffer, tl *timeline) {
	height := rowTop + rowHeight*len(tl.order) + 20
	fmt.Fprintf(b, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"timeline of the run\">\n", svgWidth, height, svgWidth, height)
	s.axis(b, tl, height)
	lanes := []struct {
		y    int
		name string
	}{{rvY, "resourceVersion"}, {decisionY, "reflector"}, {pushY, "pushes"}}
	if tl.hasH2 {
		lanes = append(lanes, struct {
			y    int
			name string
		}{connY, "HTTP/2 connection"})
	}
	for _, l := range lanes {
		fmt.Fprintf(b, "<text class=\"lane\" x=\"8\" y=\"%d\">%s</text>\n", l.y+4, l.name)
	}
	for _, n := range tl.order {
		s.bar(b, tl, tl.reqs[n])
	}
	rvs := 0
	for _, st := range s.steps {
		switch st.Kind {
		case KindRead:
			y := rowY(tl, st.Req)
			fmt.Fprintf(b, "<g data-kind=\"read\"><title>%s</title><path class=\"read\" d=\"M%.1f %d v6\"/></g>\n", esc(stepTitle(st)), tl.x(st.At), y+rowHeight-10)
		case KindEvent:
			y := rowY(tl, st.Req)
			fmt.Fprintf(b, "<g data-kind=\"event\" data-req=\"%d\"><title>%s</title><rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"4\" height=\"14\"/></g>\n",
				st.Req, esc(stepTitle(st)), cssClass(st.Event.Type), tl.x(st.At)-2, y+2)
		case KindFrame:
			y := connY - 6
			if st.Req > 0 {
				y = rowY(tl, st.Req) + rowHeight - 6
			}
			fmt.Fprintf(b, "<g data-kind=\"frame\"><title>%s</title><path class=\"frame\" d=\"M%.1f %d v5\"/></g>\n", esc(stepTitle(st)), tl.x(st.At), y)
		case KindConn:
			fmt.Fprintf(b, "<g data-kind=\"conn\"><title>%s</title><circle class=\"step\" cx=\"%.1f\" cy=\"%d\" r=\"4\"/></g>\n", esc(stepTitle(st)), tl.x(st.At), connY)
		case KindPush:
			fmt.Fprintf(b, "<g data-kind=\"push\"><title>%s</title><circle class=\"push\" cx=\"%.1f\" cy=\"%d\" r=\"4\"/></g>\n", esc(stepTitle(st)), tl.x(st.At), pushY)
		case KindDecision:
			s.decision(b, tl, st, &rvs)
		}
	}
	b.WriteString("</svg>\n")
}

func (s *htmlSink) axis(b *bytes.Buffer, tl *timeline, height int) {
	step := niceStep(tl.span)
	for at := time.Duration(0); at <= tl.span; at += step {
		x := tl.x(at)
		fmt.Fprintf(b, "<path class=\"grid\" d=\"M%.1f %d V%d\"/><text x=\"%.1f\" y=\"%d\">%s</text>\n", x, axisY+4, height-10, x+2, axisY, esc(dur(at)))
		if tl.span == 0 {
			break
		}
	}
}

// niceStep is a grid spacing of 1, 2 or 5 times a power of ten giving about
// ten lines across span.
func niceStep(span time.Duration) time.Duration {
	if span <= 0 {
		return time.Millisecond
	}
	raw := float64(span) / 10
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return max(time.Duration(m*p), time.Microsecond)
		}
	}
	return span
}

func rowY(tl *timeline, req int) int {
	if b := tl.reqs[req]; b != nil {
		return rowTop + b.row*rowHeight
	}
	return connY - 8
}

func (s *htmlSink) bar(b *bytes.Buffer, tl *timeline, r *reqBar) {
	y := rowTop + r.row*rowHeight
	x0, x1 := tl.x(r.from), tl.x(r.to)
	class := "bar"
	if r.failed {
		class += " failed"
	}
	// The label's second line is the body's format, so that JSON and
	// protobuf requests tell apart at a glance.
	fmt.Fprintf(b, "<g data-kind=\"request\" data-req=\"%d\" data-format=\"%s\"><title>%s</title><text x=\"8\" y=\"%d\">%s</text><text class=\"format\" x=\"8\" y=\"%d\">%s</text><rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"3\"/></g>\n",
		r.n, esc(r.format), esc(strings.Join(r.title, "\n")), y+11, esc(cut(r.label, 32)), y+21, esc(cut(formatName(r.format), 36)), class, x0, y+1, max(x1-x0, 2), rowHeight-4)
}

func (s *htmlSink) decision(b *bytes.Buffer, tl *timeline, st Step, rvs *int) {
	d, x := st.Decision, tl.x(st.At)
	title := esc(stepTitle(st))
	switch d.Step {
	case "resource-version":
		// Two heights, so that neighbouring labels overlap less.
		y := rvY - 4 + 10*(*rvs%2)
		*rvs++
		fmt.Fprintf(b, "<g data-kind=\"rv\"><title>%s</title><path class=\"rvtick\" d=\"M%.1f %d v8\"/><text class=\"rv\" x=\"%.1f\" y=\"%d\">%s</text></g>\n",
			title, x, rvY+6, x+2, y, esc(d.ResourceVersion))
	case "backoff":
		w := max(tl.x(st.At+d.Wait)-x, 3)
		fmt.Fprintf(b, "<g data-kind=\"backoff\"><title>%s</title><rect class=\"backoff\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\"/></g>\n", title, x, decisionY-6, w)
	case "relist", "store-refused", "fallback-list":
		fmt.Fprintf(b, "<g data-kind=\"%s\"><title>%s</title><path class=\"relist\" d=\"M%.1f %d l6 12 h-12 z\"/></g>\n", d.Step, title, x, decisionY-6)
	case "replace":
		fmt.Fprintf(b, "<g data-kind=\"replace\"><title>%s</title><path class=\"replace\" d=\"M%.1f %d l6 6 l-6 6 l-6 -6 z\"/></g>\n", title, x, decisionY-6)
	default:
		fmt.Fprintf(b, "<g data-kind=\"decision\"><title>%s</title><circle class=\"step\" cx=\"%.1f\" cy=\"%d\" r=\"3\"/></g>\n", title, x, decisionY)
	}
}

// stepTitle is a step's tooltip: its text trace, time first.
func stepTitle(st Step) string {
	tag, _, text, more := textOf(st)
	if tag == "" && st.Kind == KindDecision {
		tag, text = "reflector", st.Decision.Step+" rv="+st.Decision.ResourceVersion+": "+st.Decision.Explain
	}
	lines := append([]string{fmt.Sprintf("%.3fs %s %s", st.At.Seconds(), tag, text)}, more...)
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return strings.Join(lines, "\n")
}

// cssClass keeps a server's event type from reaching the class attribute
// unless it is one the stylesheet knows.
func cssClass(typ string) string {
	if _, ok := eventColors[typ]; ok {
		return typ
	}
	return "step"
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func esc(s string) string { return html.EscapeString(s) }
