package trace

import (
	"fmt"
	"slices"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// observe tells the reflector's decisions (a cache.ReflectorOptions.Observe
// hook). It is meant to be used with a store wrapped by wrapStore, which
// tells the replaces and marks when each event is applied.
func (t *Tracer) observe(st cache.Step) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st.Kind {
	case cache.StepEvent:
		// Changes were told at the store; a bookmark touches no store.
		if st.Event == watch.Bookmark {
			t.applyNextLocked(false)
		}
		return
	case cache.StepReplace:
		return // told by the store, before its push
	case cache.StepResourceVersion:
		if st.ResourceVersion != t.rv {
			t.rv = st.ResourceVersion
			t.emitLocked(decision(st, "resourceVersion is now "+st.ResourceVersion))
		}
		return
	}
	// Every other step comes after the reflector stopped its watch.
	t.moveOnLocked()
	t.emitLocked(decision(st, explainStep(st)))
}

func decision(st cache.Step, explain string) Step {
	d := &Decision{Step: string(st.Kind), ResourceVersion: st.ResourceVersion, Items: st.Items,
		Wait: st.Wait, Explain: explain}
	if st.Kind == cache.StepRelist {
		// The version is part of the reason, the only thing it is about.
		d.ResourceVersion, d.Reason = "", relistReason(st)
	}
	if st.Kind == cache.StepFallbackList {
		d.Reason = fallbackReason(st.Fallback)
	}
	if st.Err != nil {
		d.Error = oneLine(st.Err.Error())
	}
	return Step{Kind: KindDecision, Decision: d}
}

func relistReason(st cache.Step) string {
	switch st.Cause {
	case cache.RelistGone:
		return "resourceVersion " + st.ResourceVersion + " is too old (410)"
	case cache.RelistRefused:
		return "the store refused a change"
	case cache.RelistTooOld:
		return "list at " + st.ResourceVersion + " is too old; listing the most recent state"
	case cache.RelistPageExpired:
		return "a continued page's token expired (410); listing again in one page, without limit"
	}
	return ""
}

func fallbackReason(c cache.FallbackCause) string {
	switch c {
	case cache.FallbackFailed:
		return "the watch list failed; this sync lists, the next tries a watch list again"
	case cache.FallbackUnsupported:
		return "the server has no watch lists; every sync lists from now on"
	case cache.FallbackNoEndBookmark:
		return "the watch list's initial-events-end bookmark did not come in time"
	}
	return ""
}

func explainStep(st cache.Step) string {
	rv := st.ResourceVersion
	switch st.Kind {
	case cache.StepList:
		switch {
		case st.Page > 1:
			return "list the next page, from the snapshot of the first"
		case rv == "":
			return "nothing applied yet, so ask for the most recent state"
		case st.Match == cache.MatchNotOlderThan:
			return "a relist: ask for a state not older than " + rv + ", the last one applied, so the store never goes back in time"
		}
		return "list at resourceVersion " + rv
	case cache.StepWatchList:
		if rv == "" {
			return "stream the most recent state as events, then keep watching on the same answer"
		}
		return "stream a state not older than " + rv + " as events, then keep watching on the same answer"
	case cache.StepWatch:
		if rv == "" {
			return "watch with no resourceVersion: every existing object comes first as ADDED"
		}
		return "ask for every change after " + rv + ", the last resourceVersion applied"
	case cache.StepWatchEnded:
		return fmt.Sprintf("the server ended the watch cleanly after %d events; resume from %s with a new watch, no relist needed", st.Items, rv)
	case cache.StepRelist:
		return "the next sync lists again instead of resuming the watch"
	case cache.StepFallbackList:
		return "no watch list this time: get the state with a list instead, at once"
	case cache.StepBackoff:
		msg := "wait " + st.Wait.Round(time.Millisecond).String() + " before trying again, growing after each failure in a row"
		if ra := rest.RetryAfter(st.Err); ra > 0 && ra >= st.Wait {
			msg += " (as long as the server's Retry-After asks)"
		}
		return msg
	case cache.StepStopped:
		if st.Err != nil {
			return "the reflector gave up before its first sync: waiting would not cure this failure"
		}
		return "the reflector stopped: its context ended"
	}
	return "a reflector step podwatch does not explain"
}

// wrapStore wraps s so that t tells, just before s takes it, each change the
// reflector applies (with the event and the reads that brought it) and each
// replace. A nil t returns s itself.
func wrapStore[T meta.Object](t *Tracer, s cache.Store[T]) cache.Store[T] {
	if t == nil {
		return s
	}
	return &store[T]{Store: s, t: t}
}

type store[T meta.Object] struct {
	cache.Store[T]
	t *Tracer
}

func (s *store[T]) Add(obj T) error    { return s.change(obj, s.Store.Add) }
func (s *store[T]) Update(obj T) error { return s.change(obj, s.Store.Update) }
func (s *store[T]) Delete(obj T) error { return s.change(obj, s.Store.Delete) }

func (s *store[T]) change(obj T, apply func(T) error) error {
	s.t.mu.Lock()
	s.t.applyNextLocked(false)
	s.t.mu.Unlock()
	err := apply(obj)
	s.t.refused(err)
	return err
}

func (s *store[T]) Replace(items []T, rv string) error {
	// What the store held, and what replaces it, for the analyses (the gap
	// audit): read here, outside the Tracer's lock.
	var relist *Relist
	if len(s.t.analyses) > 0 {
		relist = &Relist{Held: versionsOf(s.Store.List()), State: versionsOf(items), To: rv}
	}
	s.t.replacing(len(items), rv, relist)
	err := s.Store.Replace(items, rv)
	s.t.refused(err)
	return err
}

func (t *Tracer) replacing(n int, rv string, relist *Relist) {
	t.mu.Lock()
	defer t.mu.Unlock()
	how := "listed"
	if r := t.cur; r != nil && r.initial {
		r.initial = false
		how = "streamed as initial events"
		for {
			e := t.applyNextLocked(true)
			if e == nil || (e.Type == string(watch.Bookmark) && e.Annotations[cache.InitialEventsEndAnnotation] == "true") {
				break
			}
		}
	}
	if relist != nil {
		relist.From = t.rv // the version the reflector had reached
	}
	t.recordLocked(nil, Record{Now: t.clock(), Relist: relist, Step: &Step{Kind: KindDecision, Decision: &Decision{Step: "replace", ResourceVersion: rv, Items: n,
		Explain: fmt.Sprintf("replace the store's content, in one step, with the %d %s %s at resourceVersion %s", n, plural(n, "object", "objects"), how, rv)}}})
}

func (t *Tracer) refused(err error) {
	if err == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emitLocked(Step{Kind: KindDecision, Decision: &Decision{Step: "store-refused", Error: oneLine(err.Error()),
		Explain: "the store refused the change, which would take it back in time; the reflector will relist"}})
}

// recordPush tells one push of an undelta store: how many objects, at which
// resourceVersion, and what changed since the last push. A nil t does nothing.
func recordPush[T meta.Object](t *Tracer, items []T, rv string) {
	if t == nil {
		return
	}
	now := make(map[string]string, len(items))
	for _, o := range items {
		m := o.Meta()
		now[key(m)] = m.ResourceVersion
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &Push{Count: len(items), ResourceVersion: rv}
	for k, v := range now {
		old, ok := t.pushed[k]
		switch {
		case !ok:
			p.Added = append(p.Added, k+"@"+v)
		case old != v:
			p.Updated = append(p.Updated, k+"@"+old+"->"+v)
		}
	}
	for k, v := range t.pushed {
		if _, ok := now[k]; !ok {
			p.Removed = append(p.Removed, k+"@"+v)
		}
	}
	slices.Sort(p.Added)
	slices.Sort(p.Updated)
	slices.Sort(p.Removed)
	t.pushed = now
	t.emitLocked(Step{Kind: KindPush, Push: p})
}

func versionsOf[T meta.Object](items []T) []ObjectVersion {
	out := make([]ObjectVersion, 0, len(items))
	for _, o := range items {
		m := o.Meta()
		out = append(out, ObjectVersion{Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion})
	}
	return out
}

func key(m *meta.ObjectMeta) string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
