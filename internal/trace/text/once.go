package text

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
)

// told is what a text trace has explained so far, so that it explains each
// thing in full the first time and briefly after (TextOptions.ExplainOnce).
// A reader learns what allowWatchBookmarks asks the first time it is sent;
// told again on every watch, it only hides what changed.
//
// Explanations are remembered by what they say with the numbers taken out:
// "only changes after 216" and "only changes after 221" say one thing, while
// a resourceVersion of 0, or one on a list, says another and is explained
// in full when first met.
//
// It rewrites a copy of each step, never the step itself: the other sinks
// (JSON, HTML) get every explanation, as the schema promises.
type told struct {
	seen map[string]bool
	// last is each query parameter's value in the last request that sent
	// it (absentValue when it mattered by being left out).
	last map[string]string
	// headers is the last request's headers, as the text shows them.
	headers string
	// server is the trace's Start.Server; recent the URLs of the last
	// requests, newest last, for a failure that repeats one to name it by
	// its number instead.
	server string
	recent []sentURL
}

// sentURL is a request's URL, as an error quotes it, its number, and the
// message of the Status it was answered with, once told.
type sentURL struct {
	url    string
	req    int
	status string
}

// recentURLs is how many requests back a failure may name a URL from: a
// failure is told right after its request, or after the few it retried.
const recentURLs = 8

// absentValue stands for a parameter listed as not sent; no query value
// holds a NUL.
const absentValue = "\x00absent"

func newTold() *told { return &told{seen: map[string]bool{}, last: map[string]string{}} }

// maxTold bounds the explanations a text trace remembers. A watch may run
// for weeks, and an explanation can quote what a server said (an error's
// text); past the bound a new explanation is told in full and not kept.
const maxTold = 4096

// first reports whether the explanation e of key is told for the first
// time, and remembers it while fewer than maxTold are.
func (o *told) first(key, e string) bool {
	k := key + "\x00" + withoutNumbers(e)
	if o.seen[k] {
		return false
	}
	if len(o.seen) < maxTold {
		o.seen[k] = true
	}
	return true
}

// brief returns st as the text trace tells it once explanations already
// given are shortened: a step's explanation to its first clause ("part of
// the initial state", "deletionTimestamp is set"), or to nothing where the
// line itself says it (a 2xx response's headers, a request's type).
func (o *told) brief(st trace.Step) trace.Step {
	switch st.Kind {
	case trace.KindStart:
		o.server = st.Start.Server
	case trace.KindRequest:
		o.sent(st)
		st.Request = o.request(st.Request)
	case trace.KindResponse:
		r := *st.Response
		if !o.first("response", r.Explain) {
			r.Explain = ""
			if r.Error != "" || r.Status < 200 || r.Status > 299 {
				r.Explain = firstClause(st.Response.Explain)
			}
		}
		st.Response = &r
	case trace.KindEvent:
		if st.Event.Status != nil {
			o.answered(st.Req, st.Event.Status.Message)
		}
		e := *st.Event
		if !o.first("event "+e.Type, e.Explain) {
			e.Explain = firstClause(e.Explain)
		}
		st.Event = &e
	case trace.KindBodyEnd:
		if st.BodyEnd.Status != nil {
			o.answered(st.Req, st.BodyEnd.Status.Message)
		}
		e := *st.BodyEnd
		if !o.first("end "+e.How, e.Explain) {
			e.Explain = firstClause(e.Explain)
		}
		st.BodyEnd = &e
	case trace.KindDecision:
		d := *st.Decision
		if !o.first("decision "+d.Step, d.Explain) {
			d.Explain = firstClause(d.Explain)
		}
		d.Error = o.nameURLs(d.Error)
		st.Decision = &d
	}
	return st
}

// request explains each parameter in full the first time, names a changed
// value with the first clause of its explanation after that, and leaves out
// a parameter, or the headers, sent as in the request before.
func (o *told) request(in *trace.Request) *trace.Request {
	r := *in
	if !o.first("request", r.Explain) {
		r.Explain = ""
	}
	r.Params = nil
	for _, p := range in.Params {
		v := p.Value
		if p.Absent {
			v = absentValue
		}
		full := o.first("param "+p.Name, p.Explain)
		same := o.last[p.Name] == v
		o.last[p.Name] = v
		switch {
		case full:
		case same:
			continue
		default:
			p.Explain = firstClause(p.Explain)
		}
		r.Params = append(r.Params, p)
	}
	var hs []string
	for _, h := range in.Headers {
		hs = append(hs, h.Name+": "+h.Value)
	}
	if joined := strings.Join(hs, "\n"); joined == o.headers {
		r.Headers = nil
	} else {
		o.headers = joined
	}
	return &r
}

// firstClause is an explanation's opening words, up to its first comma,
// semicolon, colon or parenthesis: "only changes after 221, the last state
// the client applied" is "only changes after 221".
func firstClause(e string) string {
	cut := len(e)
	for _, sep := range []string{", ", "; ", ": ", " ("} {
		if i := strings.Index(e, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	return e[:cut]
}

// withoutNumbers replaces each run of digits in s by "#".
func withoutNumbers(s string) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		isDigit := r >= '0' && r <= '9'
		if isDigit && !digits {
			b.WriteByte('#')
		}
		if !isDigit {
			b.WriteRune(r)
		}
		digits = isDigit
	}
	return b.String()
}

// sent remembers the URL of the request st.
func (o *told) sent(st trace.Step) {
	u := o.server + st.Request.Path
	if st.Request.Query != "" {
		u += "?" + st.Request.Query
	}
	o.recent = append(o.recent, sentURL{url: u, req: st.Req})
	if len(o.recent) > recentURLs {
		o.recent = o.recent[1:]
	}
}

// answered remembers the message of the Status request req was answered
// with, as the trace told it.
func (o *told) answered(req int, msg string) {
	for i := range o.recent {
		if o.recent[i].req == req {
			o.recent[i].status = msg
		}
	}
}

// nameURLs replaces, in a failure, the URL of a request the trace has shown
// by the request's number: the line of that request holds it already, and
// it is most of a failure's length. The message of the Status the request
// was answered with, told already, is left out too.
func (o *told) nameURLs(msg string) string {
	if o.server == "" {
		return msg
	}
	for i := len(o.recent) - 1; i >= 0; i-- {
		r := o.recent[i]
		if !strings.Contains(msg, r.url) {
			continue
		}
		msg = strings.ReplaceAll(msg, r.url, fmt.Sprintf("#%d", r.req))
		if r.status != "" {
			msg = strings.Replace(msg, ": "+r.status, " (its Status above)", 1)
		}
		return msg
	}
	return msg
}
