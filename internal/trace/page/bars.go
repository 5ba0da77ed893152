package page

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
)

// reqBar is one request as the page draws it: a bar from its sending to the
// end of its body.
type reqBar struct {
	n        int
	label    string
	format   string // the answer's Content-Type: the wire format of its body
	from, to float64
	ended    bool
	closed   bool // its body ended "closed"
	// class and end say how it ended, when not well (see lane).
	class  string
	end    string
	title  []string
	client string
}

// requestBars gathers the requests of a run, in the order they were sent.
func requestBars(steps []trace.Step, ax *axis) []*reqBar {
	byN := map[int]*reqBar{}
	var order []*reqBar
	for i, st := range steps {
		if st.Req == 0 {
			continue
		}
		b := byN[st.Req]
		if b == nil {
			b = &reqBar{n: st.Req, from: ax.u[i], to: ax.u[i], client: st.Client}
			byN[st.Req] = b
			order = append(order, b)
		}
		b.to = max(b.to, ax.u[i])
		switch st.Kind {
		case trace.KindRequest:
			b.label = fmt.Sprintf("#%d %s", st.Req, st.Request.Type)
			if rv := paramValue(st.Request, "resourceVersion"); rv != "" {
				b.label += " rv=" + rv
			}
			b.title = append(b.title, stepTitle(st))
		case trace.KindResponse:
			b.response(st.Response)
			b.title = append(b.title, stepTitle(st))
		case trace.KindEvent:
			if st.Event.Type == "ERROR" && st.Event.Status != nil {
				b.class, b.end = "error", fmt.Sprintf("ERROR (%d)", st.Event.Status.Code)
			}
		case trace.KindBodyEnd:
			b.ended = true
			b.bodyEnd(st.BodyEnd)
			b.title = append(b.title, stepTitle(st))
		}
	}
	lastStart := 0.0
	for _, b := range order {
		lastStart = max(lastStart, b.from)
	}
	for _, b := range order {
		if b.closed && b.to < lastStart && b.class == "" {
			// The client closed it while the run went on: something made
			// it give the stream up, unlike the last watch, closed at the
			// end of the run.
			b.class, b.end = "cut", "closed by the client"
		}
		if b.class == "error" {
			// The code goes in the bar's name too, as a refusal's does.
			b.label += strings.TrimPrefix(b.end, "ERROR")
		}
		if !b.ended && b.class != "failed" {
			// Still open when the trace ended.
			b.to = ax.span
			if b.class == "" {
				b.class = "open"
			}
		}
	}
	return order
}

func (b *reqBar) response(r *trace.Response) {
	b.format = r.ContentType
	switch {
	case r.Error != "":
		b.class, b.end = "failed", "no answer"
		b.label += " (no answer)"
	case r.Status < 200 || r.Status > 299:
		b.class, b.end = "failed", fmt.Sprintf("(%d)", r.Status)
		b.label += fmt.Sprintf(" (%d)", r.Status)
	}
}

// bodyEnd marks a body that did not end well: broken off by a failed read,
// or ended by an ERROR event, with the Status's code.
func (b *reqBar) bodyEnd(e *trace.BodyEnd) {
	switch e.How {
	case "closed":
		b.closed = true
	case "error":
		b.class, b.end = "cut", "cut"
		if e.Error != "" {
			b.end += ": " + cut(e.Error, 40)
		}
	case "error-event":
		code := ""
		if e.Status != nil {
			code = fmt.Sprintf(" (%d)", e.Status.Code)
		}
		if b.class != "error" || code != "" {
			b.class, b.end = "error", "ERROR"+code
		}
	}
}
