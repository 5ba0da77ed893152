package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// The closing line. A run whose trace is not on stderr ends with one line
// there on what it holds: the pods it ends with, the relists and backoffs
// it went through and the changes its relists show it missed, which a
// trace on stderr tells in its own closing line. The counts are the
// trace's (a run without one has a tracer of its own for them, see Run),
// so the line and a trace of the same run never disagree.

// tally is a trace sink that keeps the trace's closing counts.
type tally struct {
	stop *trace.Stop // set by the trace's last step
}

func (t *tally) Step(s trace.Step) error {
	if s.Kind == trace.KindStop {
		t.stop = s.Stop
	}
	return nil
}

func (t *tally) Close() error { return nil }

// holding follows the pods the printed output leaves the client with, by
// source and namespace/name: the updates', as the pod config holds them,
// or with --events the api source's, as the events printed and the lists
// before them tell (a seer of seenLister). It follows what was printed,
// not the reflector's store: a replay played out stops the reflector as
// soon as the last event is printed, perhaps before the store took it.
type holding struct {
	mu   sync.Mutex
	pods map[string]map[string]bool // source -> namespace/name
	rv   string                     // the api source's last resourceVersion
}

// at notes the api source's resourceVersion: the reflector's last applied,
// for updates (the session's graceful stop lets it apply the event whose
// update was printed), or with --events the last one printed.
func (h *holding) at(rv string) {
	if rv == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rv = rv
}

func (h *holding) source(name string) map[string]bool {
	if h.pods == nil {
		h.pods = map[string]map[string]bool{}
	}
	if h.pods[name] == nil {
		h.pods[name] = map[string]bool{}
	}
	return h.pods[name]
}

func (h *holding) apply(u podconfig.PodUpdate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if u.Op == podconfig.SET {
		// A SET is every source's pods (the snapshot modes), each marked
		// with its source by the pod config.
		clear(h.pods)
	}
	for _, p := range u.Pods {
		src := u.Source
		if u.Op == podconfig.SET {
			src = p.Metadata.Annotations[podconfig.SourceAnnotation]
		}
		if u.Op == podconfig.REMOVE {
			delete(h.source(src), podconfig.FullName(p))
			continue
		}
		h.source(src)[podconfig.FullName(p)] = true
	}
}

// event follows a printed watch event (--events).
func (h *holding) event(ev watch.Event[*api.Pod]) {
	if ev.Object == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	pods := h.source(podconfig.SourceAPI)
	if rv := ev.Object.Meta().ResourceVersion; rv != "" {
		h.rv = rv
	}
	switch ev.Type {
	case watch.Added, watch.Modified:
		pods[podconfig.FullName(ev.Object)] = true
	case watch.Deleted:
		delete(pods, podconfig.FullName(ev.Object))
	}
}

func (h *holding) listed(items []*api.Pod, rv string, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if rv != "" {
		h.rv = rv
	}
	pods := h.source(podconfig.SourceAPI)
	if first {
		clear(pods)
	}
	for _, p := range items {
		pods[podconfig.FullName(p)] = true
	}
}

func (h *holding) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.source(podconfig.SourceAPI))
}

// text is "2 pods", with each source's count when there are several, and
// the resourceVersion.
func (h *holding) text() (pods, rv string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	var by []string
	for _, src := range slices.Sorted(maps.Keys(h.pods)) {
		if n := len(h.pods[src]); n > 0 {
			total += n
			by = append(by, fmt.Sprintf("%d %s", n, src))
		}
	}
	s := fmt.Sprintf("%d %s", total, base.Plural(total, "pod", "pods"))
	if len(by) > 1 {
		s += " (" + strings.Join(by, ", ") + ")"
	}
	return s, h.rv
}

// closingLine is the run's closing line, from the pods it holds, the
// resourceVersion it reached ("" if none) and the trace's counts.
func closingLine(pods, rv string, st *trace.Stop) string {
	var b strings.Builder
	b.WriteString("holding " + pods)
	if rv != "" {
		b.WriteString(" at resourceVersion " + rv)
	}
	if st == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "; %d %s, %d %s, ", st.Relists, base.Plural(st.Relists, "relist", "relists"),
		st.Backoffs, base.Plural(st.Backoffs, "backoff", "backoffs"))
	if st.Missed == 0 {
		b.WriteString("no change missed")
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s missed across relists", st.Missed, base.Plural(st.Missed, "change", "changes"))
	var how []string
	for _, k := range []string{trace.MissedDeleted, trace.MissedSkipped, trace.MissedUnseen} {
		if n := st.MissedHow[k]; n > 0 {
			how = append(how, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(how) > 0 {
		b.WriteString(" (" + strings.Join(how, ", ") + ")")
	}
	b.WriteString(": --trace tells which")
	return b.String()
}
