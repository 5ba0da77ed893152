package page

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// writeListing writes the text trace under the timeline, folded by
// request: each request's steps, from its sending to the end of its body,
// in a <details> whose summary is its first line and how it ended. What
// the reflector and the store did meanwhile (the events' pushes, the
// resourceVersions) stays inside, in its place; what happened between
// requests stays outside, unfolded.
func writeListing(b *bytes.Buffer, steps []trace.Step) {
	last := map[int]int{} // each request's last step
	for i, st := range steps {
		if st.Req > 0 {
			last[st.Req] = i
		}
	}
	b.WriteString("<div class=\"listing\">\n")
	open, openUntil := false, -1
	var pre bytes.Buffer
	// One text sink for the whole listing, which reads as the text trace
	// does: every explanation in full.
	sink := text.New(&pre, text.Options{})
	flush := func() {
		if pre.Len() > 0 {
			b.WriteString("<pre>" + esc(pre.String()) + "</pre>")
			pre.Reset()
		}
	}
	for i, st := range steps {
		if !open && st.Req > 0 && st.Kind == trace.KindRequest && last[st.Req] > i {
			flush()
			fmt.Fprintf(b, "<details data-req=\"%d\"><summary>%s</summary>", st.Req, esc(requestSummary(steps, i, last[st.Req])))
			open, openUntil = true, last[st.Req]
		}
		_ = sink.Step(st) // a bytes.Buffer does not fail
		if open && i == openUntil {
			flush()
			b.WriteString("</details>\n")
			open = false
		}
	}
	flush()
	if open {
		b.WriteString("</details>\n")
	}
	b.WriteString("</div>\n")
}

// requestSummary is a folded request's one line: its text line, then how it
// was answered and ended, and what its body carried.
func requestSummary(steps []trace.Step, from, to int) string {
	st := steps[from]
	line := fmt.Sprintf("%8.3f  #%d %s", st.At.Seconds(), st.Req, text.Clean(cut(text.LineOf(st).Text, 110)))
	var parts []string
	events := 0
	for _, s := range steps[from : to+1] {
		if s.Req != st.Req {
			continue
		}
		switch s.Kind {
		case trace.KindResponse:
			if r := s.Response; r.Error != "" {
				parts = append(parts, "no answer")
			} else {
				parts = append(parts, fmt.Sprint(r.Status))
			}
		case trace.KindEvent:
			events++
		case trace.KindBodyEnd:
			end := s.BodyEnd.How
			if s.BodyEnd.Status != nil {
				end += fmt.Sprintf(" (%d)", s.BodyEnd.Status.Code)
			}
			parts = append(parts, fmt.Sprintf("%d %s", events, plural(events)), end)
		}
	}
	if len(parts) == 0 {
		return line
	}
	return line + " → " + strings.Join(parts, ", ")
}

func plural(events int) string {
	if events == 1 {
		return "event"
	}
	return "events"
}
