package clients

import (
	"net/http"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
)

// Clients is the analysis of a proxy's clients (see the package doc).
type Clients struct {
	paths map[string]*path // client and collection -> what it did
	// reqs are the requests of a collection whose body has not ended, by
	// number: a failure among their steps is their client's.
	reqs map[int]request
}

// New returns Clients; give it to the Tracer in trace.Options.Analyses,
// ahead of the analyses that read its decisions (package versions).
func New() *Clients { return &Clients{paths: map[string]*path{}, reqs: map[int]request{}} }

// path is what one client did last with one collection.
type path struct {
	watched       bool      // it has watched the collection
	lastRV        string    // the newest resourceVersion its watches carried
	lastWatchList time.Time // when it last asked for a watch list
	failedAt      time.Time // when its last request failed; zero if it did not
}

// request is a proxied request of a collection.
type request struct{ client, path string }

func (c *Clients) path(r request) *path {
	k := r.client + "\x00" + r.path
	p := c.paths[k]
	if p == nil {
		p = &path{}
		c.paths[k] = p
	}
	return p
}

// Recorded reads a proxied request of a collection for what it reveals,
// and its answer, events and end for a failure (after which the next
// request shows the backoff) and the resourceVersions its watches carry.
func (c *Clients) Recorded(rec *trace.Record) {
	s := rec.Step
	if s.Kind == trace.KindRequest {
		if p := trace.CollectionPath(s.Request.Path); s.Client != "" && p != "" {
			r := request{client: s.Client, path: p}
			c.reqs[s.Req] = r
			c.reveal(rec, r)
		}
		return
	}
	r, ok := c.reqs[s.Req]
	if !ok {
		return
	}
	switch s.Kind {
	case trace.KindResponse:
		switch resp := s.Response; {
		case resp.Error != "":
			c.path(r).failedAt = rec.Now
			delete(c.reqs, s.Req) // no body follows
		case resp.Status == http.StatusSwitchingProtocols:
			c.path(r).failedAt = rec.Now
			delete(c.reqs, s.Req) // the connection is the client's now: no body is traced
		case resp.Status < 200 || resp.Status > 299:
			c.path(r).failedAt = rec.Now
		}
	case trace.KindEvent:
		switch e := s.Event; {
		case e.Type == "ERROR":
			c.path(r).failedAt = rec.Now
		case e.ResourceVersion != "":
			c.path(r).lastRV = e.ResourceVersion
		}
	case trace.KindBodyEnd:
		if s.BodyEnd.How == "error" {
			c.path(r).failedAt = rec.Now
		}
		delete(c.reqs, s.Req)
	}
}

// reveal tells, ahead of rec's request, what the request reveals of r's
// client.
func (c *Clients) reveal(rec *trace.Record, r request) {
	p := c.path(r)
	sent, typ, q := rec.Now, rec.Step.Request.Type, rec.Step.Request.Values()
	tell := func(d *trace.Decision) {
		rec.Before(trace.Step{Kind: trace.KindDecision, Client: r.client, Decision: d})
	}
	if !p.failedAt.IsZero() {
		gap := sent.Sub(p.failedAt)
		tell(&trace.Decision{Step: "backoff", Wait: gap, Explain: "its last request for " + r.path +
			" failed, and it waited " + ms(gap) + " before asking again: its backoff"})
		p.failedAt = time.Time{}
	}
	rv, asked := q.Get("resourceVersion"), q.Has("resourceVersion")
	switch typ {
	case "list":
		if p.watched && q.Get("continue") == "" {
			tell(&trace.Decision{Step: "relist", ResourceVersion: rv, Reason: "a list after a watch",
				Explain: "it lists " + r.path + " again after watching it: its reflector starts over, " + relistFrom(rv, asked)})
		}
	case "watch":
		if p.watched && rv != "" && rv != "0" {
			tell(&trace.Decision{Step: "resume", ResourceVersion: rv, Explain: resumeText(r.path, rv, p.lastRV)})
		}
		p.watched = true
	case "watch-list":
		d := &trace.Decision{Step: "watch-list", Explain: "it asks for the state of " + r.path + " as a streaming watch list"}
		if !p.lastWatchList.IsZero() {
			d.Wait = sent.Sub(p.lastWatchList)
			d.Explain += ", " + ms(d.Wait) + " after its previous one"
		}
		if p.watched {
			d.Step, d.Reason = "relist", "a watch list after a watch"
			d.Explain += ": its reflector starts over"
		}
		tell(d)
		p.lastWatchList = sent
		p.watched = true
	}
}

func relistFrom(rv string, asked bool) string {
	switch {
	case !asked || rv == "":
		return "asking for the most recent state (resourceVersion unset: a consistent read)"
	case rv == "0":
		return "taking any state the server holds (resourceVersion=0: its watch cache, maybe stale)"
	}
	return "asking for a state not older than resourceVersion " + rv
}

func resumeText(path, rv, last string) string {
	s := "it watches " + path + " again from resourceVersion " + rv
	switch {
	case last == rv:
		return s + ", the last one its watches carried: a resume, with no relist"
	case last != "":
		return s + "; the last one its watches carried was " + last + ": a resume"
	}
	return s + ": a resume"
}

// ms shows a duration to the millisecond, as the text trace shows them.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
