package versions

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

// Options configure Versions.
type Options struct {
	// Diff says whether each MODIFIED event tells what it changed
	// (Event.Diff), and what it leaves out. Off keeps of each object its
	// resourceVersion alone, which is all Relisted needs.
	Diff DiffMode
	// Relisted, when set, is told each relist of a proxied client (the
	// relist decisions of package clients), once the state it brings has
	// all come: what the client had been sent before, and that state. It
	// is called from Recorded, and tells what it finds through rec.
	Relisted func(rec *trace.Record, r trace.Relist)
}

// maxScopes bounds the scopes kept; past it the one used least recently is
// dropped (a proxy's clients come and go without saying so).
const maxScopes = 64

// maxListBytes bounds the list body kept to read its items; past it the
// scope starts empty and fills from the watch's events.
const maxListBytes = 64 << 20

// Versions is the analysis that keeps what each client has been sent (see
// the package doc) and diffs each MODIFIED event against it.
type Versions struct {
	opts   Options
	tick   uint64
	scopes map[string]*scope
	// reqs are the requests of a scope whose body has not ended, by number.
	reqs map[int]*request
	// relisting is the proxied client whose relist decision came last: its
	// request, recorded next, is the relist.
	relisting string
}

// New returns Versions; give it to the Tracer in trace.Options.Analyses,
// after the client analysis whose relist decisions it reads.
func New(opts Options) *Versions {
	return &Versions{opts: opts, scopes: map[string]*scope{}, reqs: map[int]*request{}}
}

type version struct {
	rv     string
	object []byte // nil when not diffing
}

type scope struct {
	used    uint64
	objects map[string]version // by namespace/name
	// rv is the newest resourceVersion the scope's client has been sent
	// (by a list, an event or a bookmark); gap the audit of a relist whose
	// state has not all come yet.
	rv  string
	gap *pendingGap
}

// pendingGap is a relist's audit waiting for its state to come whole.
type pendingGap struct {
	held map[string]version // what the client had been sent before the relist
	from string             // the newest resourceVersion it had been sent
}

// request is what a request of a scope needs: the scope and, for a list,
// its body and format.
type request struct {
	scope, client, typ string
	// first is a list's first page (no continue token); fromScratch a
	// watch whose initial events bring every object again; relist a list
	// or watch list its client relists with, whose state is audited once
	// it has all come.
	first, fromScratch, relist bool
	list                       []byte
	format                     wire.Format
}

// Recorded keeps the versions as the steps bring them: a request names its
// scope, a 2xx answer starts a watch from scratch or a list's body, reads
// bring the body, events and a list's end bring objects.
func (v *Versions) Recorded(rec *trace.Record) {
	s := rec.Step
	switch s.Kind {
	case trace.KindDecision:
		if s.Client != "" && s.Decision.Step == "relist" {
			v.relisting = s.Client
		}
	case trace.KindRequest:
		relist := s.Client != "" && s.Client == v.relisting
		v.relisting = ""
		v.sent(s, relist)
	case trace.KindResponse:
		v.answered(s)
	case trace.KindRead:
		v.read(s.Req, rec.Body)
	case trace.KindEvent:
		if r := v.reqs[s.Req]; r != nil {
			v.event(r.scope, s.Event, rec.Object)
			v.gapEvent(rec, r, s.Event)
		}
	case trace.KindBodyEnd:
		v.ended(rec)
	}
}

// scopeOf is the scope of a request: its client, collection and selectors;
// "" for a request that is not of a collection.
func scopeOf(client, path string, q url.Values) string {
	c := trace.CollectionPath(path)
	if c == "" {
		return ""
	}
	return client + "\x00" + c + "?" + q.Get("fieldSelector") + "&" + q.Get("labelSelector")
}

func (v *Versions) sent(s *trace.Step, relist bool) {
	q := s.Request.Values()
	sc := scopeOf(s.Client, s.Request.Path, q)
	if sc == "" {
		return
	}
	rv, typ := q.Get("resourceVersion"), s.Request.Type
	v.reqs[s.Req] = &request{scope: sc, client: s.Client, typ: typ, first: q.Get("continue") == "", relist: relist,
		fromScratch: typ == "watch-list" || typ == "watch" && (rv == "" || rv == "0")}
}

// answered empties the scope of a watch that starts from scratch, and
// makes a list keep its body, once the answer is a success.
func (v *Versions) answered(s *trace.Step) {
	r := v.reqs[s.Req]
	resp := s.Response
	switch {
	case r == nil:
	case resp.Error != "" || resp.Status < 200 || resp.Status > 299:
		delete(v.reqs, s.Req)
	case r.fromScratch:
		if r.relist {
			v.relist(r.scope)
		}
		v.scope(r.scope, true)
	case r.typ == "list":
		r.list = []byte{}
		r.format, _ = wire.ParseContentType(resp.ContentType)
	}
}

// read keeps what a list's body read brought.
func (v *Versions) read(n int, data []byte) {
	r := v.reqs[n]
	if r == nil || r.list == nil {
		return
	}
	if len(r.list)+len(data) > maxListBytes {
		sv := v.scope(r.scope, r.first) // too long to keep: start afresh
		sv.gap = nil                    // and audit nothing: its state is not known
		delete(v.reqs, n)
		return
	}
	r.list = append(r.list, data...)
}

// ended reads the items of a list body that came whole.
func (v *Versions) ended(rec *trace.Record) {
	s := rec.Step
	r := v.reqs[s.Req]
	delete(v.reqs, s.Req)
	if r == nil || r.list == nil || s.BodyEnd.How != "eof" {
		return
	}
	if r.relist {
		v.relist(r.scope)
	}
	if lm, ok := v.listed(r.scope, r.list, r.format, r.first); ok && lm.cont == "" {
		v.audit(rec, r.client, r.scope, lm.rv)
	}
}

// gapEvent audits a watch list relist once its initial events are over: e
// is the bookmark that says so.
func (v *Versions) gapEvent(rec *trace.Record, r *request, e *trace.Event) {
	if r.typ == "watch-list" && e.Type == "BOOKMARK" && e.Annotations[cache.InitialEventsEndAnnotation] == "true" {
		v.audit(rec, r.client, r.scope, e.ResourceVersion)
	}
}

// scope returns the versions of s, its objects made empty when fresh.
func (v *Versions) scope(s string, fresh bool) *scope {
	v.tick++
	sv := v.scopes[s]
	switch {
	case sv == nil:
		if len(v.scopes) >= maxScopes {
			v.dropOldest()
		}
		sv = &scope{objects: map[string]version{}}
		v.scopes[s] = sv
	case fresh:
		sv.objects = map[string]version{}
	}
	sv.used = v.tick
	return sv
}

// keep is what a version keeps of object: all of it for diffs, nothing
// (its resourceVersion alone) for the gap audit.
func (v *Versions) keep(object []byte) []byte {
	if v.opts.Diff == DiffOff {
		return nil
	}
	return bytes.Clone(object)
}

// saw notes rv as sent to the scope's client.
func (sv *scope) saw(rv string) {
	if rv != "" && (sv.rv == "" || trace.NewerRV(rv, sv.rv)) {
		sv.rv = rv
	}
}

func (v *Versions) dropOldest() {
	oldest, at := "", uint64(0)
	for s, sv := range v.scopes {
		if oldest == "" || sv.used < at {
			oldest, at = s, sv.used
		}
	}
	delete(v.scopes, oldest)
}

// event keeps or drops e's object, and diffs a MODIFIED one against the
// version kept. object is the event's object in JSON, nil if unknown.
func (v *Versions) event(s string, e *trace.Event, object []byte) {
	if e.Error != "" {
		return
	}
	sv := v.scope(s, false)
	sv.saw(e.ResourceVersion)
	if object == nil {
		return
	}
	objs := sv.objects
	k := e.Namespace + "/" + e.Name
	switch e.Type {
	case "ADDED":
	case "MODIFIED":
		if prev, ok := objs[k]; ok && prev.object != nil {
			if changes, err := DiffJSON(prev.object, object, v.opts.Diff); err == nil {
				e.Diff, e.DiffFrom = changes, prev.rv
			}
		}
	case "DELETED":
		delete(objs, k)
		return
	default:
		return
	}
	objs[k] = version{rv: e.ResourceVersion, object: v.keep(object)}
}

// listed keeps the items of a list body (a page of it: first replaces the
// scope, a later page adds to it), in JSON, protobuf or CBOR, and returns
// the list's metadata. A body that cannot be read leaves the scope empty:
// better no diff than a wrong one. A relist's audit still waits, against
// what the client held before: its decoder fails on that body too.
func (v *Versions) listed(s string, body []byte, format wire.Format, first bool) (listMeta, bool) {
	sv := v.scope(s, first)
	objs := sv.objects
	fail := func() (listMeta, bool) {
		clear(objs)
		return listMeta{}, false
	}
	js, err := format.ObjectJSON(body)
	if err != nil {
		return fail()
	}
	var kind, apiVersion string
	var lm listMeta
	var items [][]byte
	r := jsonx.NewReader(js)
	r.Object(func(key []byte) {
		switch string(key) {
		case "kind":
			kind = strings.TrimSuffix(r.String(), "List")
		case "apiVersion":
			apiVersion = r.String()
		case "metadata":
			lm = readListMeta(r)
		case "items":
			r.Array(func() { items = append(items, r.Raw()) })
		default:
			r.Skip()
		}
	})
	if r.Err() != nil {
		return fail()
	}
	for _, item := range items {
		m := itemMeta(item)
		var object []byte
		if v.opts.Diff != DiffOff {
			object = withTypeMeta(item, kind, apiVersion)
		}
		objs[m.Namespace+"/"+m.Name] = version{rv: m.ResourceVersion, object: object}
	}
	sv.saw(lm.rv)
	return lm, true
}

// itemMeta is what a list item's metadata says of it.
func itemMeta(item []byte) meta.ObjectMeta {
	var m meta.ObjectMeta
	r := jsonx.NewReader(item)
	r.Object(func(key []byte) {
		if string(key) != "metadata" {
			r.Skip()
			return
		}
		m.ReadJSON(r)
	})
	return m
}

// listMeta is what a list's metadata tells of the state it is a page of.
type listMeta struct {
	rv, cont string // its resourceVersion; the continue token of a page with more after it
}

func readListMeta(r *jsonx.Reader) listMeta {
	var lm listMeta
	r.Object(func(key []byte) {
		switch string(key) {
		case "resourceVersion":
			lm.rv = r.String()
		case "continue":
			lm.cont = r.String()
		default:
			r.Skip()
		}
	})
	return lm
}

// withTypeMeta is a copy of a list item with the kind and apiVersion its
// list gives it, as a watch event's object has them: without them every
// first diff after a list would tell them added.
func withTypeMeta(item []byte, kind, apiVersion string) []byte {
	var tm struct{ Kind, APIVersion *string }
	if json.Unmarshal(item, &tm) != nil || tm.Kind != nil || tm.APIVersion != nil || kind == "" {
		return bytes.Clone(item)
	}
	item = bytes.TrimSpace(item)
	head, _ := json.Marshal(map[string]string{"kind": kind, "apiVersion": apiVersion})
	out := append(head[:len(head)-1:len(head)-1], ',')
	if bytes.Equal(item, []byte("{}")) {
		return append(out[:len(out)-1], '}')
	}
	return append(out, item[1:]...)
}

// relist sets s's objects aside for the audit of the relist starting, and
// empties them for the state it brings. A relist begun again before that
// state came whole (a watch list cut short, a paged list restarted) keeps
// what was set aside first: the pages or events since are not what the
// client's store held.
func (v *Versions) relist(s string) {
	sv := v.scope(s, false)
	if sv.gap != nil {
		return
	}
	sv.gap = &pendingGap{held: sv.objects, from: sv.rv}
	sv.objects = map[string]version{}
}

// audit hands Options.Relisted what the state of s at rv to, just come
// whole, replaces for client, when a relist's audit waits for it.
func (v *Versions) audit(rec *trace.Record, client, s, to string) {
	sv := v.scopes[s]
	if sv == nil || sv.gap == nil {
		return
	}
	g := sv.gap
	sv.gap = nil
	if v.opts.Relisted != nil {
		v.opts.Relisted(rec, trace.Relist{Client: client, Held: versionsIn(g.held), From: g.from, State: versionsIn(sv.objects), To: to})
	}
}

// versionsIn are a scope's versions as the audit compares them.
func versionsIn(objs map[string]version) []trace.ObjectVersion {
	out := make([]trace.ObjectVersion, 0, len(objs))
	for k, v := range objs {
		ns, name, _ := strings.Cut(k, "/")
		out = append(out, trace.ObjectVersion{Namespace: ns, Name: name, ResourceVersion: v.rv})
	}
	return out
}
