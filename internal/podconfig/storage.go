package podconfig

import (
	"cmp"
	"slices"
	"time"

	"github.com/podwatch/podwatch/rest/api"
)

// storage is PodConfig's state: the pods of every source keyed by UID, and which
// sources have sent their first SET. It is not safe for concurrent use; PodConfig
// serialises calls to merge.
type storage struct {
	mode   Mode
	now    func() time.Time
	report func(source string, err error)
	pods   map[string]map[string]*entry // source -> UID -> entry
	seen   map[string]bool
}

func newStorage(mode Mode, now func() time.Time, report func(string, error)) *storage {
	return &storage{mode: mode, now: now, report: report, pods: map[string]map[string]*entry{}, seen: map[string]bool{}}
}

// changes are the pods one update affected, by kind.
type changes struct {
	adds, updates, deletes, removes, reconciles []*api.Pod
}

// merge applies u from source and returns the updates to publish, in order.
func (s *storage) merge(source string, u PodUpdate) []PodUpdate {
	firstSet := u.Op == SET && !s.seen[source]
	c, ok := s.apply(source, u)
	if !ok {
		return nil
	}
	return s.notifications(source, c, firstSet)
}

func (s *storage) apply(source string, u PodUpdate) (changes, bool) {
	var c changes
	old := s.pods[source]
	if old == nil {
		old = map[string]*entry{}
	}
	switch u.Op {
	case ADD, UPDATE, DELETE:
		// A source's DELETE carries pods with a deletionTimestamp; merging them
		// like any other change makes them the graceful deletes they are.
		s.upsert(source, u, old, old, &c)
		s.pods[source] = old
	case REMOVE:
		for _, ref := range u.Pods {
			if ref == nil {
				continue
			}
			if e, ok := old[ref.Metadata.UID]; ok {
				delete(old, ref.Metadata.UID)
				c.removes = append(c.removes, e.pod)
			}
		}
	case SET:
		s.seen[source] = true
		next := make(map[string]*entry, len(u.Pods))
		s.upsert(source, u, old, next, &c)
		for uid, e := range old {
			if _, ok := next[uid]; !ok {
				c.removes = append(c.removes, e.pod)
			}
		}
		s.pods[source] = next
	default:
		s.report(source, &UpdateError{Source: source, Op: u.Op, Reason: "unknown operation, update ignored"})
		return c, false
	}
	return c, true
}

// upsert merges the pods of u into into, comparing each with its entry in old
// (the same map for incremental ops).
func (s *storage) upsert(source string, u PodUpdate, old, into map[string]*entry, c *changes) {
	seen := formatSeen(s.now())
	for _, ref := range s.valid(source, u) {
		uid := ref.Metadata.UID
		e, ok := old[uid]
		if !ok {
			p := stamped(ref, source, seen)
			into[uid] = &entry{pod: p}
			c.adds = append(c.adds, p)
			continue
		}
		k := compare(e, ref)
		if k == unchanged {
			into[uid] = e
			continue
		}
		// Keep the first-seen time: it is when the pod arrived, not when it changed.
		p := restamped(ref, e.pod, source, k)
		into[uid] = &entry{pod: p}
		switch {
		case k == statusChanged:
			c.reconciles = append(c.reconciles, p)
		case k == changed && p.Metadata.DeletionTimestamp != nil:
			c.deletes = append(c.deletes, p)
		case k == changed:
			c.updates = append(c.updates, p)
		}
	}
}

// valid returns the pods of u that can be merged: each needs a UID, and its full
// name and UID must be new in the update. The first of two duplicates wins, as in
// the kubelet; the rest are reported.
func (s *storage) valid(source string, u PodUpdate) []*api.Pod {
	// A struct key rather than FullName: no string built per pod on every push.
	type fullName struct{ namespace, name string }
	names := make(map[fullName]bool, len(u.Pods))
	uids := make(map[string]bool, len(u.Pods))
	out := make([]*api.Pod, 0, len(u.Pods))
	for _, p := range u.Pods {
		switch {
		case p == nil:
			s.report(source, &UpdateError{Source: source, Op: u.Op, Reason: "nil pod ignored"})
		case p.Metadata.UID == "":
			s.report(source, &UpdateError{Source: source, Op: u.Op, Reason: "pod " + FullName(p) + " has no uid, ignoring it"})
		case names[fullName{p.Metadata.Namespace, p.Metadata.Name}]:
			s.report(source, &DuplicateError{Source: source, Pod: FullName(p), UID: p.Metadata.UID})
		case uids[p.Metadata.UID]:
			s.report(source, &DuplicateError{Source: source, Pod: FullName(p), UID: p.Metadata.UID, ByUID: true})
		default:
			names[fullName{p.Metadata.Namespace, p.Metadata.Name}] = true
			uids[p.Metadata.UID] = true
			out = append(out, p)
		}
	}
	return out
}

// notifications turns the changes of one update into what the mode publishes.
func (s *storage) notifications(source string, c changes, firstSet bool) []PodUpdate {
	var out []PodUpdate
	add := func(op Op, pods []*api.Pod, evenEmpty bool) {
		if len(pods) > 0 || evenEmpty {
			out = append(out, PodUpdate{Pods: sortPods(pods), Op: op, Source: source})
		}
	}
	set := func() { add(SET, s.all(), true) }
	switch s.mode {
	case Snapshot:
		if len(c.adds)+len(c.updates)+len(c.deletes)+len(c.removes) > 0 || firstSet {
			set()
		}
	case SnapshotAndUpdates:
		if len(c.adds)+len(c.removes) > 0 || firstSet {
			set()
		}
		add(UPDATE, c.updates, false)
		add(DELETE, c.deletes, false)
	default:
		add(REMOVE, c.removes, false)
		add(ADD, c.adds, false)
		add(UPDATE, c.updates, false)
		add(DELETE, c.deletes, false)
		// An empty ADD tells the consumer the source is ready even when its first
		// state had nothing new for it.
		if firstSet && len(c.adds)+len(c.updates)+len(c.deletes) == 0 {
			add(ADD, nil, true)
		}
		add(RECONCILE, c.reconciles, false)
	}
	return out
}

// all returns every source's pods.
func (s *storage) all() []*api.Pod {
	var n int
	for _, m := range s.pods {
		n += len(m)
	}
	out := make([]*api.Pod, 0, n)
	for _, m := range s.pods {
		for _, e := range m {
			out = append(out, e.pod)
		}
	}
	return out
}

// sortPods orders pods by namespace and name; a static pod and its mirror share
// both, so source and UID break ties and keep the order deterministic.
func sortPods(pods []*api.Pod) []*api.Pod {
	if pods == nil {
		pods = []*api.Pod{}
	}
	slices.SortFunc(pods, func(a, b *api.Pod) int {
		am, bm := &a.Metadata, &b.Metadata
		return cmp.Or(cmp.Compare(am.Namespace, bm.Namespace), cmp.Compare(am.Name, bm.Name),
			cmp.Compare(am.Annotations[SourceAnnotation], bm.Annotations[SourceAnnotation]), cmp.Compare(am.UID, bm.UID))
	})
	return pods
}

func (s *storage) seenAll(sources []string) bool {
	for _, src := range sources {
		if !s.seen[src] {
			return false
		}
	}
	return true
}
