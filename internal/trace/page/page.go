package page

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// maxHTMLSteps bounds what an HTML sink keeps for its page; a longer run's
// page shows the first steps and says how many it left out.
const maxHTMLSteps = 200_000

// Run is what a page records of the run that made it, so that a page read
// later says what it shows.
type Run struct {
	// Command is the command line, as it was given.
	Command string
	// Fixture is the replayed fixture's folder, empty against a server.
	Fixture string
	// Faults are the faults injected into a replay, as they were asked for.
	Faults []string
	// Date is when the run began; the zero time leaves it out.
	Date time.Time
}

// New returns a Sink that keeps the steps and, on Close, writes to w one
// self-contained page, recording run (the zero Run records nothing): a
// timeline of the run that pans and zooms (each request a bar from its
// sending to the end of its body, its reads and events on it;
// resourceVersions, reflector decisions, pushes, stalls and gaps on lanes
// above; a lane per pod below), each mark's details on hover and on click,
// and the text trace folded by request. The page loads nothing: its script
// and style are inline, and its Content-Security-Policy forbids anything
// else. Close does not close w.
func New(w io.Writer, run Run) trace.Sink { return &htmlSink{w: w, run: run} }

type htmlSink struct {
	w       io.Writer
	run     Run
	steps   []trace.Step
	dropped int
}

func (s *htmlSink) Step(st trace.Step) error {
	if len(s.steps) >= maxHTMLSteps && st.Kind != trace.KindStop {
		s.dropped++
		return nil
	}
	s.steps = append(s.steps, st)
	return nil
}

func (s *htmlSink) Close() error {
	var b bytes.Buffer
	if err := s.page(&b); err != nil {
		return err
	}
	_, err := s.w.Write(b.Bytes())
	return err
}

//go:embed page.css
var pageStyle string

//go:embed page.js
var pageScript string

// pageCatch goes first, so that the page's self-test (see page.js)
// counts any error, its own script's included.
const pageCatch = `window.pwErrors=[];window.addEventListener("error",function(e){window.pwErrors.push(String(e.message||e))});` +
	`(function(){var ce=console.error;console.error=function(){window.pwErrors.push([].join.call(arguments," "));return ce.apply(console,arguments)}})();`

// pageCSP lets the page run its own inline script and style and load
// nothing at all.
const pageCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

func (s *htmlSink) page(b *bytes.Buffer) error {
	var start *trace.Start
	var stop *trace.Stop
	for _, st := range s.steps {
		switch st.Kind {
		case trace.KindStart:
			start = st.Start
		case trace.KindStop:
			stop = st.Stop
		}
	}
	pm := buildModel(s.steps)
	model, err := json.Marshal(pm) // escapes <, > and &: safe in a script element
	if err != nil {
		return fmt.Errorf("trace: html page: %w", err)
	}
	title := pageTitleOf(s.run, start)
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"+
		"<title>%s</title>\n<script>%s</script>\n<style>\n%s</style>\n</head>\n<body>\n<h1>%s</h1>\n",
		pageCSP, esc(title), pageCatch, pageStyle, esc(title))
	s.runFacts(b, start, stop, pm.Note)
	b.WriteString(pageControls)
	b.WriteString("<div id=\"pw-chart\" tabindex=\"0\" aria-label=\"timeline of the run\"></div>\n")
	b.WriteString("<noscript><p>The timeline needs JavaScript; the steps are all listed below.</p></noscript>\n")
	b.WriteString("<pre id=\"pw-detail\" class=\"detail\">Click a mark for its details.</pre>\n")
	fmt.Fprintf(b, "<script type=\"application/json\" id=\"pw-data\">%s</script>\n", model)
	b.WriteString("<script>\n" + pageScript + "</script>\n")
	b.WriteString("<h2>Every step, folded by request</h2>\n")
	writeListing(b, s.steps)
	b.WriteString("</body>\n</html>\n")
	return nil
}

// pageTitleOf names the page after the fixture replayed, else the server.
func pageTitleOf(run Run, start *trace.Start) string {
	switch {
	case run.Fixture != "":
		return "podwatch trace: " + filepath.Base(run.Fixture)
	case start != nil && start.Server != "":
		if u, err := url.Parse(start.Server); err == nil && u.Host != "" {
			return "podwatch trace: " + u.Host
		}
		return "podwatch trace: " + start.Server
	}
	return "podwatch trace"
}

// runFacts writes what was run and what came of it.
func (s *htmlSink) runFacts(b *bytes.Buffer, start *trace.Start, stop *trace.Stop, note string) {
	b.WriteString("<dl class=\"run\">\n")
	fact := func(name, value string) {
		if value != "" {
			fmt.Fprintf(b, "<dt>%s</dt><dd data-fact=\"%s\">%s</dd>\n", name, name, esc(text.Clean(value)))
		}
	}
	fact("command", s.run.Command)
	fact("fixture", s.run.Fixture)
	if s.run.Fixture != "" || len(s.run.Faults) > 0 {
		faults := strings.Join(s.run.Faults, "; ")
		if faults == "" {
			faults = "none"
		}
		fact("faults", faults)
	}
	if !s.run.Date.IsZero() {
		fact("date", s.run.Date.UTC().Format("2006-01-02 15:04:05 MST"))
	}
	if start != nil {
		fact("server", start.Server)
		fact("watching", start.Watching)
	}
	if st := stop; st != nil {
		sum := fmt.Sprintf("%d requests, %d events, %d pushes, %d relists, %d backoffs in %s%s",
			st.Requests, st.Events, st.Pushes, st.Relists, st.Backoffs, text.Duration(st.Duration), text.WatchBytes(st))
		if st.Stalls > 0 || st.Missed > 0 {
			sum += fmt.Sprintf("; %d stalls, %d missed changes", st.Stalls, st.Missed)
		}
		fact("summary", sum)
	}
	var left []string
	if s.dropped > 0 {
		left = append(left, fmt.Sprintf("only the first %d steps are drawn; %d more were left out", maxHTMLSteps, s.dropped))
	}
	if note != "" {
		left = append(left, note)
	}
	fact("left out", strings.Join(left, "; "))
	if clients := proxyClients(s.steps); len(clients) > 0 {
		var list []string
		for i, c := range clients {
			list = append(list, fmt.Sprintf("c%d: %s", i+1, c))
		}
		fact("clients, one lane each", strings.Join(list, "; "))
	}
	b.WriteString("</dl>\n")
}

// proxyClients are a proxy's clients, in the order they came.
func proxyClients(steps []trace.Step) []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range steps {
		if st.Client != "" && st.Req > 0 && !seen[st.Client] {
			seen[st.Client] = true
			out = append(out, st.Client)
		}
	}
	return out
}

const pageControls = `<p class="controls"><button type="button" data-zoom="in">zoom in</button> <button type="button" data-zoom="out">zoom out</button> <button type="button" data-zoom="fit">whole run</button>
<span class="hint">Wheel or +/− to zoom, drag or arrow keys to pan, hover or click a mark for its details. The axis spreads steps that came together and compresses pauses (hatched, labelled with their length).</span></p>
<p class="legend"><span><i class="sw ADDED"></i>ADDED</span><span><i class="sw MODIFIED"></i>MODIFIED</span><span><i class="sw DELETED"></i>DELETED</span><span><i class="sw BOOKMARK"></i>BOOKMARK</span><span><i class="sw ERROR"></i>ERROR</span><span><i class="sw read"></i>body read</span><span><i class="sw backoff"></i>backoff</span><span><i class="sw relist"></i>relist</span><span><i class="sw replace"></i>replace</span><span><i class="sw push"></i>push</span><span><i class="sw cut"></i>cut or ended by an ERROR</span><span><i class="sw stall"></i>stall</span><span><i class="sw missed"></i>missed</span><span><i class="sw dens"></i>many marks (zoom in)</span></p>
`

// stepTitle is a step's tooltip: its text trace, time first.
func stepTitle(st trace.Step) string {
	l := text.LineOf(st)
	switch {
	case l.Tag == "" && st.Kind == trace.KindDecision:
		l.Tag, l.Text = "reflector", st.Decision.Step+" rv="+st.Decision.ResourceVersion+": "+st.Decision.Explain
	case l.Tag == "":
		l.Tag = string(st.Kind)
	}
	lines := append([]string{fmt.Sprintf("%.3fs %s %s", st.At.Seconds(), l.Tag, l.Text)}, l.More...)
	for i, l := range lines {
		lines[i] = text.Clean(l)
	}
	return strings.Join(lines, "\n")
}

// cssClass keeps a server's event type from reaching the class attribute
// unless it is one the stylesheet knows.
func cssClass(typ string) string {
	switch typ {
	case "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR":
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

// formatName is how a bar names its body's format: the Content-Type with
// Kubernetes' long vendor prefix shortened.
func formatName(contentType string) string {
	if contentType == "" {
		return "no body format"
	}
	return strings.Replace(contentType, "application/vnd.kubernetes.", "k8s ", 1)
}

func paramValue(r *trace.Request, name string) string {
	for _, p := range r.Params {
		if p.Name == name && !p.Absent {
			return p.Value
		}
	}
	return ""
}
