package text

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/cborwire"
)

// ANSI colours of the text trace.
const (
	reset   = "\x1b[0m"
	bold    = "\x1b[1m"
	dim     = "\x1b[2m"
	red     = "\x1b[31m"
	green   = "\x1b[32m"
	yellow  = "\x1b[33m"
	blue    = "\x1b[34m"
	magenta = "\x1b[35m"
	cyan    = "\x1b[36m"
)

// listCap is how many names a text line lists before "and N more".
const listCap = 20

// Options shape a text trace; the zero value tells every explanation in
// full and never wraps a line.
type Options struct {
	// Color colours the tags with ANSI escapes, for a terminal.
	Color bool
	// Width, when not 0, keeps every line within Width columns: a line is
	// broken at spaces, its continuation indented under its text (a word
	// longer than a whole line, such as a URL, is broken after a & ? / , ;
	// = or :, else where the line ends). Below 40 it is taken as 40.
	Width int
	// ExplainOnce explains each parameter, event type, decision and
	// response in full the first time the trace meets it, and briefly
	// after: a parameter sent as in the request before is left out, one
	// with a new value is shown with the opening words of its explanation.
	ExplainOnce bool
}

// New returns a Sink writing each step as a line or a few, each step with
// one Write, its time in seconds since the start first, shaped by opts.
// Text the server sent has its control characters escaped, so it cannot
// drive the terminal. Close does not close w.
func New(w io.Writer, opts Options) trace.Sink {
	s := &textSink{w: w, color: opts.Color, width: opts.Width}
	if opts.ExplainOnce {
		s.told = newTold()
	}
	return s
}

type textSink struct {
	w     io.Writer
	color bool
	width int
	told  *told // nil: every explanation in full
}

// textIndent is where a step's text starts: after the time and the tag.
const textIndent = 25

func (s *textSink) Close() error { return nil }

func (s *textSink) Step(st trace.Step) error {
	if s.told != nil {
		st = s.told.brief(st)
	}
	tag, col, text, more := textOf(st)
	if tag == "" {
		return nil
	}
	var b strings.Builder
	pad := fmt.Sprintf("%-13s", tag)
	if s.color && col != "" {
		pad = col + pad + reset
	}
	s.writeLine(&b, fmt.Sprintf("%8.3f  ", st.At.Seconds())+pad+" ", text)
	for _, m := range more {
		s.writeLine(&b, strings.Repeat(" ", textIndent), m)
	}
	_, err := io.WriteString(s.w, b.String())
	return err
}

// writeLine writes one line of a step, after head, wrapped to the sink's
// width. A line whose explanation was left out loses the ": " before it,
// and a line left empty is not written.
func (s *textSink) writeLine(b *strings.Builder, head, text string) {
	text = strings.TrimSuffix(Clean(text), ": ")
	if text == "" && strings.TrimSpace(head) == "" {
		return
	}
	for _, l := range wrapLine(head, text, s.width) {
		b.WriteString(l + "\n")
	}
}

// Line is how the text trace tells one step: a tag, the tag's colour (an
// ANSI escape), the line after it and the lines under it, every
// explanation in full. Text is not yet cleaned of control characters
// (Clean); an empty Tag means the step is not shown as text.
type Line struct {
	Tag, Color, Text string
	More             []string
}

// LineOf is st as the text trace tells it; the HTML page shows it too.
func LineOf(st trace.Step) Line {
	tag, col, text, more := textOf(st)
	return Line{Tag: tag, Color: col, Text: text, More: more}
}

// textOf is the tag, its colour, the line and any lines under it for st; an
// empty tag means st is not shown as text.
func textOf(st trace.Step) (tag, col, text string, more []string) {
	req := fmt.Sprintf("#%d ", st.Req)
	switch st.Kind {
	case trace.KindStart:
		return "trace", bold, "of " + st.Start.Server + ": " + st.Start.Watching, nil
	case trace.KindStop:
		p := st.Stop
		return "trace", bold, fmt.Sprintf("end after %s: %s, %s, %s, %s, %s%s%s", Duration(p.Duration),
			count(p.Requests, "request", "requests"), count(p.Events, "event", "events"), count(p.Pushes, "push", "pushes"),
			count(p.Relists, "relist", "relists"), count(p.Backoffs, "backoff", "backoffs"), WatchBytes(p), missedTotals(p)), nil
	case trace.KindDecision:
		tag, col, text, more := decisionText(st.Decision)
		if st.Client != "" && tag != "" {
			// A proxy tells what a client's requests reveal of it.
			tag, text = "client", st.Client+": "+text
		}
		return tag, col, text, more
	case trace.KindRequest:
		return withClient(st.Client)(requestText(req, st.Request))
	case trace.KindResponse:
		return responseText(req, st.Response)
	case trace.KindRead:
		r := st.Read
		return req + "read", dim, fmt.Sprintf("%d bytes at %d, +%s", r.Bytes, r.Offset, Duration(r.Since)), nil
	case trace.KindEvent:
		return eventText(req, st.Event)
	case trace.KindBodyEnd:
		return endText(req, st.BodyEnd)
	case trace.KindConn:
		c := st.Conn
		return fmt.Sprintf("h2 c%d", c.ID), blue, "HTTP/2 connection to " + c.Authority + " (" + c.TLS + "); its frames follow", nil
	case trace.KindFrame:
		return frameText(st)
	case trace.KindPush:
		return pushText(st.Push)
	case trace.KindStall:
		return withClient(st.Client)(stallText(req, st.Stall))
	case trace.KindMissed:
		return withClient(st.Client)(missedText(st.Missed))
	}
	return "", "", "", nil
}

func decisionText(d *trace.Decision) (string, string, string, []string) {
	if d.Step == "resource-version" {
		return "", "", "", nil // every event and replace shows its resourceVersion
	}
	col := magenta
	head := d.Step
	switch d.Step {
	case "relist", "backoff", "store-refused", "fallback-list":
		col = bold + magenta
	}
	if d.Wait > 0 {
		head += " " + Duration(d.Wait)
	}
	if d.ResourceVersion != "" && d.Step != "backoff" {
		head += " rv=" + d.ResourceVersion
	}
	var more []string
	switch {
	case d.Reason != "":
		more = append(more, "because: "+d.Reason)
		if d.Error != "" {
			more = append(more, "error: "+d.Error)
		}
	case d.Error != "":
		more = append(more, "because: "+d.Error)
	}
	return "reflector", col, head + ": " + d.Explain, more
}

func requestText(req string, r *trace.Request) (string, string, string, []string) {
	u := r.Path
	if r.Query != "" {
		u += "?" + r.Query
	}
	var more []string
	for _, p := range r.Params {
		if p.Absent {
			more = append(more, p.Name+" (not sent): "+p.Explain)
		} else {
			more = append(more, p.Name+"="+p.Value+": "+p.Explain)
		}
	}
	if len(r.Headers) > 0 {
		var hs []string
		for _, h := range r.Headers {
			hs = append(hs, h.Name+": "+h.Value)
		}
		more = append(more, "headers: "+strings.Join(hs, "; "))
	}
	return req + "->", cyan, r.Method + " " + u + " (" + r.Type + "): " + r.Explain, more
}

func responseText(req string, r *trace.Response) (string, string, string, []string) {
	if r.Error != "" {
		return req + "<-", red, "failed after " + Duration(r.Wait) + ": " + r.Error, []string{r.Explain}
	}
	col := green
	if r.Status < 200 || r.Status > 299 {
		col = red
	}
	parts := []string{r.StatusText, r.Proto}
	if r.ContentType != "" {
		parts = append(parts, "Content-Type: "+r.ContentType)
	}
	if len(r.TransferEncoding) > 0 {
		parts = append(parts, "Transfer-Encoding: "+strings.Join(r.TransferEncoding, ", "))
	}
	if r.ContentLength >= 0 {
		parts = append(parts, fmt.Sprintf("Content-Length: %d", r.ContentLength))
	}
	if r.RetryAfter != "" {
		parts = append(parts, "Retry-After: "+r.RetryAfter)
	}
	return req + "<-", col, strings.Join(parts, ", ") + ", after " + Duration(r.Wait), []string{r.Explain}
}

var eventColors = map[string]string{"ADDED": green, "MODIFIED": yellow, "DELETED": red, "BOOKMARK": blue, "ERROR": bold + red}

// WatchBytes is the summary's wire cost of the watches, if any were read:
// what a user compares between a JSON and a protobuf run.
func WatchBytes(p *trace.Stop) string {
	switch {
	case p.WatchBytes == 0:
		return ""
	case p.Events == 0:
		return fmt.Sprintf("; watch bodies %d bytes", p.WatchBytes)
	}
	return fmt.Sprintf("; watch bodies %d bytes, %.1f bytes per event", p.WatchBytes, p.BytesPerEvent)
}

func eventText(req string, e *trace.Event) (string, string, string, []string) {
	if e.Error != "" {
		return badFrameText(req, e)
	}
	var what string
	switch {
	case e.Status != nil:
		what = fmt.Sprintf("%d %s: %s", e.Status.Code, e.Status.Reason, e.Status.Message)
	case e.Type == "BOOKMARK":
		what = "rv=" + e.ResourceVersion
		for _, k := range sortedKeys(e.Annotations) {
			what += " " + k + "=" + e.Annotations[k]
		}
	default:
		what = e.Namespace + "/" + e.Name + " rv=" + e.ResourceVersion
		if e.Deleting {
			what += " deleting"
		}
	}
	var more []string
	if e.Prefix != nil {
		more = append(more, frameLine(e))
	}
	if e.CBOR != nil {
		more = append(more, cborLine(e.CBOR))
	}
	more = append(more, diffLines(e)...)
	return req + e.Type, eventColors[e.Type], fmt.Sprintf("%s (%d bytes at %d): %s", what, e.Bytes, e.Offset, e.Explain), more
}

// frameLine shows a protobuf frame: its prefix as sent and what it
// announces, then the envelope inside the WatchEvent.
func frameLine(e *trace.Event) string {
	s := fmt.Sprintf("frame: length prefix %s = %d bytes of WatchEvent", spacedHex(e.Prefix.Hex), e.Prefix.Length)
	if e.Type != "" {
		s += " " + e.Type
	}
	if env := e.Envelope; env != nil {
		s += "; " + envelopeText(env)
	}
	return s
}

// cborLine shows a CBOR watch item: it has no framing, so where it ends
// comes from its headers; it opens with the self-describe tag.
func cborLine(c *trace.CBORItem) string {
	s := "CBOR item, bounds from its own headers, begins " + spacedHex(c.Head)
	if c.Tag == cborwire.TagSelfDescribed {
		s += ": tag 55799, self-described CBOR"
	}
	return s
}

func envelopeText(env *trace.Envelope) string {
	s := fmt.Sprintf("envelope k8s\\x00 %s %s, contentEncoding %q, contentType %q, object %d bytes",
		env.APIVersion, env.Kind, env.ContentEncoding, env.ContentType, env.ObjectBytes)
	if env.Items != nil {
		s += fmt.Sprintf(", %d %s", *env.Items, plural(*env.Items, "item", "items"))
	}
	return s
}

// spacedHex puts a space between the bytes of a hex string, as a dump does.
func spacedHex(h string) string {
	var b strings.Builder
	for i := 0; i+2 <= len(h); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

func badFrameText(req string, e *trace.Event) (string, string, string, []string) {
	text := fmt.Sprintf("%d bytes at %d", e.Bytes, e.Offset)
	if e.Prefix != nil {
		text += fmt.Sprintf(" (length prefix %s)", spacedHex(e.Prefix.Hex))
	}
	return req + "bad frame", bold + red, text + ": " + e.Error, []string{e.Explain}
}

func endText(req string, e *trace.BodyEnd) (string, string, string, []string) {
	text := fmt.Sprintf("%s after %d bytes in %d %s, %s", e.How, e.Bytes, e.Reads, plural(e.Reads, "read", "reads"), Duration(e.Duration))
	if e.Error != "" {
		text += " (" + e.Error + ")"
	}
	text += ": " + e.Explain
	var more []string
	if s := e.Status; s != nil {
		more = append(more, fmt.Sprintf("Status %d %s: %s", s.Code, s.Reason, s.Message))
	}
	if e.Envelope != nil {
		more = append(more, envelopeText(e.Envelope))
	}
	return req + "end", dim, text, more
}

func frameText(st trace.Step) (string, string, string, []string) {
	f := st.Frame
	text := fmt.Sprintf("%s stream=%d len=%d", f.Type, f.Stream, f.Length)
	if st.Req > 0 {
		text += fmt.Sprintf(" (#%d)", st.Req)
	}
	if f.Flags != "" {
		text += " " + f.Flags
	}
	if f.Detail != "" {
		text += ": " + f.Detail
	}
	return fmt.Sprintf("h2 c%d %s", f.Conn, f.Dir), dim + blue, text, nil
}

func pushText(p *trace.Push) (string, string, string, []string) {
	text := fmt.Sprintf("%d %s at rv %s", p.Count, plural(p.Count, "pod", "pods"), p.ResourceVersion)
	var changes []string
	for _, a := range p.Added {
		changes = append(changes, "+"+a)
	}
	for _, u := range p.Updated {
		changes = append(changes, "~"+u)
	}
	for _, r := range p.Removed {
		changes = append(changes, "-"+r)
	}
	switch {
	case len(changes) == 0:
		text += ": no change since the last push"
	case len(changes) > listCap:
		text += ": " + strings.Join(changes[:listCap], " ") + fmt.Sprintf(" and %d more", len(changes)-listCap)
	default:
		text += ": " + strings.Join(changes, " ")
	}
	return "push", bold, text, nil
}

// count is n with its noun: "1 relist", "2 relists".
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

// Duration shows a duration as the text trace does: to the millisecond.
func Duration(d time.Duration) string { return d.Round(time.Millisecond).String() }

// Clean escapes control characters, so that text a server sent cannot move
// the cursor or recolour a terminal.
func Clean(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
