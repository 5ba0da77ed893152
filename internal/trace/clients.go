package trace

import (
	"context"
	"net/url"
	"strings"
	"time"
)

// A proxy's trace cannot see a client's reflector, only its requests; but
// the requests tell a good deal. For each client and each collection it
// asks for, the trace keeps what the client did last, and tells as a client
// decision what the next request reveals: a list after a watch is a relist
// (and from which resourceVersion), a watch from a resourceVersion after a
// watch is a resume (from the last one its watches carried, or not), a
// watch list comes some time after the previous one, and the gap between a
// failed request and the next is the client's backoff.

type clientKey struct{}

// WithClient marks the requests sent with ctx as the named client's, for a
// Tracer with Options.Proxy: the trace names the client on each of their
// steps and tells what they reveal of it.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

func clientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// maxClientReqs bounds how many requests back a proxy's trace remembers
// whose each was.
const maxClientReqs = 4096

// clientsSeen is what a proxy's trace remembers of its clients.
type clientsSeen struct {
	byReq map[int]string         // request number -> client
	paths map[string]*clientPath // client and collection -> what it did
}

// clientPath is what one client did last with one collection.
type clientPath struct {
	watched       bool      // it has watched the collection
	lastRV        string    // the newest resourceVersion its watches carried
	lastWatchList time.Time // when it last asked for a watch list
	failedAt      time.Time // when its last request failed; zero if it did not
}

func (t *Tracer) pathLocked(r *reqState) *clientPath {
	k := r.client + "\x00" + r.path
	cp := t.clients.paths[k]
	if cp == nil {
		cp = &clientPath{}
		t.clients.paths[k] = cp
	}
	return cp
}

// CollectionPath is the resource collection a request's path asks for, with
// a legacy /watch/ segment taken out, or "" for any other path (discovery,
// one named object): /api/v1/pods, /api/v1/namespaces/NS/pods,
// /apis/GROUP/VERSION/RESOURCE and its namespaced form.
func CollectionPath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var kept []string
	for i, s := range segs {
		if s == "watch" && i >= 2 && i < len(segs)-1 {
			continue
		}
		kept = append(kept, s)
	}
	n := len(kept)
	switch {
	case n >= 3 && kept[0] == "api" && (n == 3 || n == 5 && kept[2] == "namespaces"):
	case n >= 4 && kept[0] == "apis" && (n == 4 || n == 6 && kept[3] == "namespaces"):
	default:
		return ""
	}
	return "/" + strings.Join(kept, "/")
}

// revealLocked tells what r, about to be told, reveals of its client.
func (t *Tracer) revealLocked(r *reqState, q url.Values) {
	if r.path == "" {
		return
	}
	cp := t.pathLocked(r)
	tell := func(d *Decision) {
		t.emitLocked(Step{Kind: KindDecision, Client: r.client, Decision: d})
	}
	if !cp.failedAt.IsZero() {
		gap := r.sent.Sub(cp.failedAt)
		tell(&Decision{Step: "backoff", Wait: gap, Explain: "its last request for " + r.path +
			" failed, and it waited " + dur(gap) + " before asking again: its backoff"})
		cp.failedAt = time.Time{}
	}
	rv, asked := q.Get("resourceVersion"), q.Has("resourceVersion")
	switch r.typ {
	case "list":
		if cp.watched && q.Get("continue") == "" {
			tell(&Decision{Step: "relist", ResourceVersion: rv, Reason: "a list after a watch",
				Explain: "it lists " + r.path + " again after watching it: its reflector starts over, " + relistFrom(rv, asked)})
		}
	case "watch":
		if cp.watched && rv != "" && rv != "0" {
			tell(&Decision{Step: "resume", ResourceVersion: rv, Explain: resumeText(r.path, rv, cp.lastRV)})
		}
		cp.watched = true
	case "watch-list":
		d := &Decision{Step: "watch-list", Explain: "it asks for the state of " + r.path + " as a streaming watch list"}
		if !cp.lastWatchList.IsZero() {
			d.Wait = r.sent.Sub(cp.lastWatchList)
			d.Explain += ", " + dur(d.Wait) + " after its previous one"
		}
		if cp.watched {
			d.Step, d.Reason = "relist", "a watch list after a watch"
			d.Explain += ": its reflector starts over"
		}
		tell(d)
		cp.lastWatchList = r.sent
		cp.watched = true
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

// sawEventLocked notes the resourceVersion a proxied watch's event carried,
// or its ERROR, a failure like a failed answer.
func (t *Tracer) sawEventLocked(r *reqState, e *Event) {
	if r.path == "" {
		return
	}
	if e.Type == "ERROR" {
		t.failedLocked(r)
		return
	}
	if e.ResourceVersion != "" {
		t.pathLocked(r).lastRV = e.ResourceVersion
	}
}

// failedLocked notes that r failed: the client's next request for the same
// collection shows how long it backed off.
func (t *Tracer) failedLocked(r *reqState) {
	if r.path != "" {
		t.pathLocked(r).failedAt = t.clock()
	}
}
