package page

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
)

// podLanes draws each pod's life as the client saw it: a span while the
// store held it (from the pushes, which say what each one added, updated
// and removed), a mark at each change, and a mark where the gap audit
// found a change missed.
type podLanes struct {
	ax    *axis
	order []string // pods in the order they first appear
	pods  map[string]*podLane
	// lastEvent is each pod's event not yet pushed: its change marks take
	// the event's text, which holds its diff.
	lastEvent map[string]string
}

type podLane struct {
	spans [][2]float64
	open  float64 // where the open span began, -1 when not held
	marks []mark
}

func newPodLanes(steps []trace.Step, ax *axis) *podLanes {
	p := &podLanes{ax: ax, pods: map[string]*podLane{}, lastEvent: map[string]string{}}
	for i, st := range steps {
		if st.Kind == trace.KindPush {
			p.push(st, ax.u[i])
		}
	}
	return p
}

func (p *podLanes) lane(key string) *podLane {
	l := p.pods[key]
	if l == nil {
		l = &podLane{open: -1}
		p.pods[key] = l
		p.order = append(p.order, key)
	}
	return l
}

// podKey is namespace/name from a push's "ns/name@rv" or "ns/name@a->b".
func podKey(entry string) string {
	key, _, _ := strings.Cut(entry, "@")
	return key
}

func (p *podLanes) push(st trace.Step, u float64) {
	title := stepTitle(st)
	at := round3(float64(st.At.Microseconds()) / 1000)
	for _, e := range st.Push.Added {
		l := p.lane(podKey(e))
		if l.open < 0 {
			l.open = u
		}
		l.marks = append(l.marks, mark{U: u, Kind: "change", Class: "ADDED", At: at, Title: title})
	}
	for _, e := range st.Push.Updated {
		l := p.lane(podKey(e))
		if l.open < 0 {
			l.open = u // held since before the trace could tell
		}
		l.marks = append(l.marks, mark{U: u, Kind: "change", Class: "MODIFIED", At: at, Title: title})
	}
	for _, e := range st.Push.Removed {
		l := p.lane(podKey(e))
		from := l.open
		if from < 0 {
			from = u
		}
		l.spans = append(l.spans, [2]float64{from, u})
		l.open = -1
		l.marks = append(l.marks, mark{U: u, Kind: "change", Class: "DELETED", At: at, Title: title})
	}
}

// event keeps an event's text for the change mark of the push that applies
// it. Pushes are placed before events (newPodLanes), so the mark is found
// by its place: the first change mark of the pod after the event.
func (p *podLanes) event(st trace.Step, u float64) {
	e := st.Event
	if e.Name == "" || e.Type == "BOOKMARK" || e.Type == "ERROR" {
		return
	}
	l := p.pods[e.Namespace+"/"+e.Name]
	if l == nil {
		return
	}
	for i := range l.marks {
		m := &l.marks[i]
		if m.U >= u && !strings.Contains(m.Title, "\n\nthe event:\n") {
			m.Title += "\n\nthe event:\n" + stepTitle(st)
			return
		}
	}
}

// missed marks a change the client did not see on its pod's lane.
func (p *podLanes) missed(st trace.Step, u float64) {
	m := st.Missed
	if m == nil {
		return
	}
	l := p.lane(m.Namespace + "/" + m.Name)
	l.marks = append(l.marks, mark{U: u, Kind: "missed", At: round3(float64(st.At.Microseconds()) / 1000), Title: stepTitle(st)})
}

// addTo appends the pods' lanes and their marks to m, at most maxPodLanes.
func (p *podLanes) addTo(m *pageModel) {
	if len(p.order) == 0 {
		return
	}
	shown := p.order
	if len(shown) > maxPodLanes {
		shown = shown[:maxPodLanes]
		m.Note = fmt.Sprintf("%d pods drawn a lane each; %d more left out", maxPodLanes, len(p.order)-maxPodLanes)
	}
	m.Lanes = append(m.Lanes, lane{Kind: lanePods, Name: fmt.Sprintf("pods (%d)", len(p.order))})
	for _, key := range shown {
		l := p.pods[key]
		spans := l.spans
		if l.open >= 0 {
			spans = append(spans, [2]float64{l.open, p.ax.span})
		}
		idx := len(m.Lanes)
		m.Lanes = append(m.Lanes, lane{Kind: lanePod, Name: key, Spans: spans})
		for _, mk := range l.marks {
			mk.Lane = idx
			m.Marks = append(m.Marks, mk)
		}
	}
}
