package trace

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/wire"
)

// With Options.Diff, the trace diffs each MODIFIED event's object against
// the version of it seen last, on the wire, in whatever format it came
// (protobuf and CBOR through their transcoders to JSON). It keeps one
// version per object per scope: the collection and selectors one client
// lists and watches, so that a proxy's clients, and one client's different
// watches, never see each other's versions. A list (its first page)
// replaces a scope's versions, its later pages add to them; a watch list,
// and a watch from no resourceVersion or "0", empty it, as their initial
// ADDED events fill it again; ADDED and MODIFIED keep the new version and
// DELETED drops it. So a scope holds at most the objects its client holds.
//
// A proxy's trace keeps the scopes always, for the gap audit of its
// clients' relists (missed_proxy.go): without Options.Diff each object is
// kept as its resourceVersion alone.

// maxDiffScopes bounds the scopes kept; past it the one used least recently
// is dropped (a proxy's clients come and go without saying so).
const maxDiffScopes = 64

// maxDiffListBytes bounds the list body kept to read its items; past it the
// scope starts empty and fills from the watch's events.
const maxDiffListBytes = 64 << 20

type version struct {
	rv     string
	object []byte // nil without Options.Diff
}

type scopeVersions struct {
	used    uint64
	objects map[string]version // by namespace/name
	// rv is the newest resourceVersion the scope's client has been sent
	// (by a list, an event or a bookmark); gap the audit of a relist whose
	// state has not all come yet (missed_proxy.go).
	rv  string
	gap *pendingGap
}

// versions are the objects a Tracer diffs against. Used under Tracer.mu.
type versions struct {
	mode   DiffMode
	tick   uint64
	scopes map[string]*scopeVersions
}

// newVersions keeps versions for diffs (mode), or for a proxy's gap audit
// (proxy), or returns nil for neither.
func newVersions(mode DiffMode, proxy bool) *versions {
	if mode == DiffOff && !proxy {
		return nil
	}
	return &versions{mode: mode, scopes: map[string]*scopeVersions{}}
}

// diffScope is the scope of a request: its client, collection and
// selectors; "" for a request that is not of a collection.
func diffScope(client, path string, q url.Values) string {
	c := collectionPath(path)
	if c == "" {
		return ""
	}
	return client + "\x00" + c + "?" + q.Get("fieldSelector") + "&" + q.Get("labelSelector")
}

// scope returns the versions of s, its objects made empty when fresh.
func (v *versions) scope(s string, fresh bool) *scopeVersions {
	v.tick++
	sv := v.scopes[s]
	switch {
	case sv == nil:
		if len(v.scopes) >= maxDiffScopes {
			v.dropOldest()
		}
		sv = &scopeVersions{objects: map[string]version{}}
		v.scopes[s] = sv
	case fresh:
		sv.objects = map[string]version{}
	}
	sv.used = v.tick
	return sv
}

// keep is what a version keeps of object: all of it for diffs, nothing
// (its resourceVersion alone) for the gap audit.
func (v *versions) keep(object []byte) []byte {
	if v.mode == DiffOff {
		return nil
	}
	return bytes.Clone(object)
}

// saw notes rv as sent to the scope's client.
func (sv *scopeVersions) saw(rv string) {
	if rv != "" && (sv.rv == "" || newerRV(rv, sv.rv)) {
		sv.rv = rv
	}
}

func (v *versions) dropOldest() {
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
func (v *versions) event(s string, e *Event, object []byte) {
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
			if changes, err := DiffJSON(prev.object, object, v.mode); err == nil {
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
func (v *versions) listed(s string, body []byte, format wire.Format, first bool) (listMeta, bool) {
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
		e := &Event{}
		readMeta(item, e)
		var object []byte
		if v.mode != DiffOff {
			object = withTypeMeta(item, kind, apiVersion)
		}
		objs[e.Namespace+"/"+e.Name] = version{rv: e.ResourceVersion, object: object}
	}
	sv.saw(lm.rv)
	return lm, true
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

// reqDiff is what a request needs for diffs: its scope and, for a list,
// its body and format.
type reqDiff struct {
	scope string
	// first is a list's first page (no continue token); fromScratch a
	// watch whose initial events bring every object again; relist a list
	// or watch list its client relists with (clients.go), whose state is
	// audited once it has all come.
	first, fromScratch, relist bool
	list                       []byte
	format                     wire.Format
}

// diffSentLocked notes r's scope, when the trace keeps versions (it diffs, or
// audits a proxy's clients).
func (t *Tracer) diffSentLocked(r *reqState, path string, q url.Values) {
	if t.diffs == nil {
		return
	}
	s := diffScope(r.client, path, q)
	if s == "" {
		return
	}
	rv := q.Get("resourceVersion")
	r.diff = &reqDiff{scope: s, first: q.Get("continue") == "", relist: r.relist,
		fromScratch: r.typ == "watch-list" || r.typ == "watch" && (rv == "" || rv == "0")}
}

// diffAnsweredLocked empties the scope of a watch that starts from scratch,
// and makes a list keep its body, once the answer is a success.
func (t *Tracer) diffAnsweredLocked(r *reqState, contentType string, ok bool) {
	d := r.diff
	switch {
	case d == nil:
	case !ok:
		r.diff = nil
	case d.fromScratch:
		if d.relist {
			t.diffs.relist(d.scope)
		}
		t.diffs.scope(d.scope, true)
	case r.typ == "list":
		d.list = []byte{}
		d.format, _ = wire.ParseContentType(contentType)
	}
}

// diffReadLocked keeps what a list's body read brought.
func (t *Tracer) diffReadLocked(r *reqState, data []byte) {
	d := r.diff
	if d == nil || d.list == nil {
		return
	}
	if len(d.list)+len(data) > maxDiffListBytes {
		d.list = nil
		sv := t.diffs.scope(d.scope, d.first) // too long to keep: start afresh
		sv.gap = nil                          // and audit nothing: its state is not known
		r.diff = nil
		return
	}
	d.list = append(d.list, data...)
}

// diffEventLocked keeps or diffs the object of a watch event of r.
func (t *Tracer) diffEventLocked(r *reqState, e *Event, object []byte) {
	if r.diff != nil {
		t.diffs.event(r.diff.scope, e, object)
	}
}

// diffEndLocked reads the items of a list body that came whole.
func (t *Tracer) diffEndLocked(r *reqState, how string) {
	d := r.diff
	if d == nil || d.list == nil {
		return
	}
	list := d.list
	d.list = nil
	if how != "eof" {
		return
	}
	if d.relist {
		t.diffs.relist(d.scope)
	}
	if lm, ok := t.diffs.listed(d.scope, list, d.format, d.first); ok && lm.cont == "" {
		t.auditScopeLocked(r.client, d.scope, lm.rv)
	}
}
