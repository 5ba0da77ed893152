package trace

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/podwatch/podwatch/rest/cborwire"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
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

// maxDiffScopes bounds the scopes kept; past it the one used least recently
// is dropped (a proxy's clients come and go without saying so).
const maxDiffScopes = 64

// maxDiffListBytes bounds the list body kept to read its items; past it the
// scope starts empty and fills from the watch's events.
const maxDiffListBytes = 64 << 20

type version struct {
	rv     string
	object []byte
}

type scopeVersions struct {
	used    uint64
	objects map[string]version // by namespace/name
}

// versions are the objects a Tracer diffs against. Used under Tracer.mu.
type versions struct {
	mode   DiffMode
	tick   uint64
	scopes map[string]*scopeVersions
}

func newVersions(mode DiffMode) *versions {
	if mode == DiffOff {
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

// scope returns the versions of s, made empty when fresh.
func (v *versions) scope(s string, fresh bool) *scopeVersions {
	v.tick++
	sv := v.scopes[s]
	if sv == nil || fresh {
		if sv == nil && len(v.scopes) >= maxDiffScopes {
			v.dropOldest()
		}
		sv = &scopeVersions{objects: map[string]version{}}
		v.scopes[s] = sv
	}
	sv.used = v.tick
	return sv
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
	if object == nil || e.Error != "" {
		return
	}
	objs := v.scope(s, false).objects
	k := e.Namespace + "/" + e.Name
	switch e.Type {
	case "ADDED":
	case "MODIFIED":
		if prev, ok := objs[k]; ok {
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
	objs[k] = version{rv: e.ResourceVersion, object: bytes.Clone(object)}
}

// listed keeps the items of a list body (a page of it: first replaces the
// scope, a later page adds to it), in JSON, protobuf or CBOR. A body that
// cannot be read leaves the scope empty: better no diff than a wrong one.
func (v *versions) listed(s string, body []byte, format string, first bool) {
	objs := v.scope(s, first).objects
	var js []byte
	var err error
	switch format {
	case "protobuf":
		var u *protowire.Unknown
		if u, err = protowire.ParseEnvelope(body, 0); err == nil {
			var tc protowire.Transcoder
			js, err = tc.Object(u)
		}
	case "cbor":
		var tc cborwire.Transcoder
		js, err = tc.JSON(body, 0)
	default:
		js = body
	}
	if err != nil {
		clear(objs)
		return
	}
	var kind, apiVersion string
	var items [][]byte
	r := jsonx.NewReader(js)
	r.Object(func(key []byte) {
		switch string(key) {
		case "kind":
			kind = strings.TrimSuffix(r.String(), "List")
		case "apiVersion":
			apiVersion = r.String()
		case "items":
			r.Array(func() { items = append(items, r.Raw()) })
		default:
			r.Skip()
		}
	})
	if r.Err() != nil {
		clear(objs)
		return
	}
	for _, item := range items {
		e := &Event{}
		readMeta(item, e)
		objs[e.Namespace+"/"+e.Name] = version{rv: e.ResourceVersion, object: withTypeMeta(item, kind, apiVersion)}
	}
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
	// watch whose initial events bring every object again.
	first, fromScratch bool
	list               []byte
	format             string
}

// diffSentLocked notes r's scope, when the trace diffs.
func (t *Tracer) diffSentLocked(r *reqState, path string, q url.Values) {
	if t.diffs == nil {
		return
	}
	s := diffScope(r.client, path, q)
	if s == "" {
		return
	}
	rv := q.Get("resourceVersion")
	r.diff = &reqDiff{scope: s, first: q.Get("continue") == "",
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
		t.diffs.scope(d.scope, true)
	case r.typ == "list":
		d.list = []byte{}
		switch {
		case isProtobuf(contentType):
			d.format = "protobuf"
		case isCBOR(contentType):
			d.format = "cbor"
		}
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
		t.diffs.scope(d.scope, d.first) // too long to keep: start afresh
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
	if how == "eof" {
		t.diffs.listed(d.scope, d.list, d.format, d.first)
	}
	d.list = nil
}
