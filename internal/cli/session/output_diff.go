package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/versions"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// printDiffs is what -o json --diff keeps to tell what each update (or,
// with --events, each MODIFIED event) changed: the last version printed of
// each pod, by source, as the line printed it. A pod is dropped when it is
// removed (or DELETED), and a source's SET replaces all of the source's.
type printDiffs struct {
	mode versions.DiffMode

	mu       sync.Mutex
	bySource map[string]map[string][]byte // source -> namespace/name -> JSON
}

func newPrintDiffs(mode versions.DiffMode) *printDiffs {
	if mode == versions.DiffOff {
		return nil
	}
	return &printDiffs{mode: mode, bySource: map[string]map[string][]byte{}}
}

func (d *printDiffs) source(name string) map[string][]byte {
	m := d.bySource[name]
	if m == nil {
		m = map[string][]byte{}
		d.bySource[name] = m
	}
	return m
}

// modifies says whether op is one a MODIFIED event gives: its line always
// gets a diff member, with each pod whose earlier version was printed.
func modifies(op podconfig.Op) bool {
	return op == podconfig.UPDATE || op == podconfig.DELETE || op == podconfig.RECONCILE
}

// update adds a "diff" member to rec, the update line of u: each pod's
// changes since it was last printed, by namespace/name. UPDATE, DELETE and
// RECONCILE lines always get one; a SET (each update, in snapshot modes)
// only when a pod in it changed.
func (d *printDiffs) update(rec []byte, u podconfig.PodUpdate) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pods := d.source(u.Source)
	changed := map[string][]trace.Change{}
	seen := map[string]bool{}
	for _, pod := range u.Pods {
		k := podconfig.FullName(pod)
		if u.Op == podconfig.REMOVE {
			delete(pods, k)
			continue
		}
		js, err := typedJSON(pod)
		if err != nil {
			return nil, fmt.Errorf("encode pod %s: %w", k, err)
		}
		if prev, ok := pods[k]; ok && (modifies(u.Op) || u.Op == podconfig.SET) {
			changes, err := versions.DiffJSON(prev, js, d.mode)
			if err != nil {
				return nil, fmt.Errorf("diff pod %s: %w", k, err)
			}
			if len(changes) > 0 || modifies(u.Op) {
				changed[k] = nonNil(changes)
			}
		}
		pods[k], seen[k] = js, true
	}
	if u.Op == podconfig.SET {
		for k := range pods {
			if !seen[k] {
				delete(pods, k)
			}
		}
	}
	if !modifies(u.Op) && len(changed) == 0 {
		return rec, nil
	}
	return withMember(rec, "diff", changed)
}

// event adds a "diff" member to a MODIFIED event's line (the event as the
// server sent it): its object's changes since the pod's last event.
func (d *printDiffs) event(ev watch.Event[*api.Pod]) ([]byte, error) {
	if ev.Object == nil {
		return ev.Raw, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	pods := d.source("api")
	k := podconfig.FullName(ev.Object)
	switch ev.Type {
	case watch.Added, watch.Modified:
	case watch.Deleted:
		delete(pods, k)
		return ev.Raw, nil
	default:
		return ev.Raw, nil
	}
	var raw struct {
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(ev.Raw, &raw); err != nil {
		return nil, fmt.Errorf("diff event of %s: %w", k, err)
	}
	prev, ok := pods[k]
	pods[k] = bytes.Clone(raw.Object)
	if ev.Type != watch.Modified || !ok {
		return ev.Raw, nil
	}
	changes, err := versions.DiffJSON(prev, raw.Object, d.mode)
	if err != nil {
		return nil, fmt.Errorf("diff event of %s: %w", k, err)
	}
	return withMember(ev.Raw, "diff", nonNil(changes))
}

// nonNil makes no changes print as [], not null.
func nonNil(c []trace.Change) []trace.Change {
	if c == nil {
		return []trace.Change{}
	}
	return c
}

// listed keeps a list page's pods for --events: a list prints no event,
// and the first MODIFIED after it compares with the pod listed. A first
// page replaces what was kept, a later one adds to it. A pod that does
// not encode is not kept (printing its event fails on it anyway).
func (d *printDiffs) listed(items []*api.Pod, _ string, first bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pods := d.source("api")
	if first {
		clear(pods)
	}
	for _, pod := range items {
		if js, err := typedJSON(pod); err == nil {
			pods[podconfig.FullName(pod)] = js
		}
	}
}

// forget drops what was kept for --events: a watch list's, or a watch's
// from no resourceVersion, initial events bring every pod again.
func (d *printDiffs) forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.source("api"))
}

// listSeer is told what each list brings and when a watch starts from
// scratch, with --events: a list prints no event, and a watch from scratch
// brings every pod again, yet both change what the events that follow mean.
type listSeer interface {
	// listed is told a list page's items and resourceVersion; first says
	// it is a list's first.
	listed(items []*api.Pod, rv string, first bool)
	// forget is told that a watch starts from scratch.
	forget()
}

// seenLister tells its seers (a printer's diffs, the closing line's pods)
// what each list brings and when a watch starts from scratch. It sits
// beneath the printing tee, so it acts when the reflector asks, before any
// event of the watch that follows is printed.
type seenLister struct {
	inner cache.ListerWatcher[*api.Pod]
	seers []listSeer
}

func (l seenLister) List(ctx context.Context, opts cache.ListOptions) (*rest.List[*api.Pod], error) {
	list, err := l.inner.List(ctx, opts)
	if err == nil {
		for _, s := range l.seers {
			s.listed(list.Items, list.Metadata.ResourceVersion, opts.Continue == "")
		}
	}
	return list, err
}

func (l seenLister) Watch(ctx context.Context, opts cache.WatchOptions) (watch.Interface[*api.Pod], error) {
	if opts.SendInitialEvents || opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		for _, s := range l.seers {
			s.forget()
		}
	}
	return l.inner.Watch(ctx, opts)
}

// typedJSON is pod's JSON with the kind and apiVersion a watch event's
// object has: a listed pod comes without them, and the first diff after a
// list would otherwise tell them added.
func typedJSON(pod *api.Pod) ([]byte, error) {
	if pod.Kind != "" && pod.APIVersion != "" {
		return pod.MarshalJSON()
	}
	typed := *pod
	typed.Kind, typed.APIVersion = "Pod", "v1"
	return typed.MarshalJSON()
}

// withMember appends a member to the JSON object rec.
func withMember(rec []byte, name string, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s: %w", name, err)
	}
	rec = bytes.TrimRight(rec, " \n")
	out := append(bytes.Clone(rec[:len(rec)-1]), `,"`+name+`":`...)
	out = append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
	return append(out, '}'), nil
}
