package page

import (
	"fmt"
	"sort"
	"strings"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// pageModel is what the page's script draws: lanes top to bottom, marks on
// them, all placed on the axis (see htmlaxis.go). The script chooses, for
// the width and zoom at hand, which labels fit and where marks are too
// dense to draw one by one.
type pageModel struct {
	Span   float64     `json:"span"`
	Lanes  []lane      `json:"lanes"`
	Marks  []mark      `json:"marks"`
	Ticks  []tick      `json:"ticks"`
	Breaks []axisBreak `json:"breaks"`
	// Note says what was left out of the drawing, if anything.
	Note string `json:"note,omitempty"`
}

// Lane kinds.
const (
	laneFixed = "fixed" // resourceVersion, reflector, pushes, ...
	laneReq   = "req"   // one request's bar
	lanePods  = "pods"  // the heading above the pods' lanes
	lanePod   = "pod"   // one pod's life
)

type lane struct {
	Kind  string `json:"k"`
	Name  string `json:"n"`
	Sub   string `json:"s,omitempty"` // a request's body format
	Title string `json:"t,omitempty"`
	// A request's bar, from its sending to the end of its body.
	From float64 `json:"a,omitempty"`
	To   float64 `json:"b,omitempty"`
	// Class is a bar's: "failed" (refused), "cut" (broken off), "error"
	// (ended by an ERROR event), "open" (still open at the end).
	Class string `json:"c,omitempty"`
	// End labels the end of a cut or errored bar: "cut", "ERROR (410)".
	End string `json:"e,omitempty"`
	// Spans are when a pod was in the store.
	Spans [][2]float64 `json:"sp,omitempty"`
}

// mark is one thing drawn on a lane.
type mark struct {
	Lane int     `json:"l"`
	U    float64 `json:"u"`
	// W is a span's width (a backoff), 0 for a point.
	W float64 `json:"w,omitempty"`
	// Kind is what is drawn: event, read, frame, conn, push, rv, backoff,
	// relist, replace, decision, stall, missed, change.
	Kind  string `json:"k"`
	Class string `json:"c,omitempty"`
	Label string `json:"x,omitempty"`
	// At is the step's time in milliseconds, Title its text in full.
	At    float64 `json:"at"`
	Title string  `json:"t"`
}

// maxPodLanes bounds the pods drawn a lane each; a page of a big node says
// how many it left out.
const maxPodLanes = 100

// The fixed lanes, in their order on the page.
const (
	laneRV = iota
	laneReflector
	lanePushes
	laneConn
	laneStudy
	fixedLanes
)

// modelBuilder builds a pageModel from a run's steps.
type modelBuilder struct {
	steps []trace.Step
	ax    *axis
	m     pageModel
	// fixed maps a fixed lane to its index in m.Lanes (-1: not drawn).
	fixed [fixedLanes]int
	reqs  map[int]int // request number to lane index
	pods  *podLanes
}

func buildModel(steps []trace.Step) pageModel {
	b := &modelBuilder{steps: steps, ax: layoutAxis(steps), reqs: map[int]int{}}
	b.m.Span, b.m.Ticks, b.m.Breaks = b.ax.span, b.ax.ticks, b.ax.breaks
	b.fixedLanes()
	b.requestLanes()
	b.pods = newPodLanes(steps, b.ax)
	for i, st := range steps {
		b.place(i, st)
	}
	b.pods.addTo(&b.m)
	return b.m
}

func (b *modelBuilder) fixedLanes() {
	var h2, study bool
	for _, st := range b.steps {
		switch st.Kind {
		case trace.KindConn, trace.KindFrame:
			h2 = true
		case trace.KindStall, trace.KindMissed:
			study = true
		}
	}
	names := [fixedLanes]string{"resourceVersion", "reflector", "pushes", "HTTP/2 connection", "stalls and gaps"}
	show := [fixedLanes]bool{true, true, true, h2, study}
	for i := range b.fixed {
		b.fixed[i] = -1
		if show[i] {
			b.fixed[i] = len(b.m.Lanes)
			b.m.Lanes = append(b.m.Lanes, lane{Kind: laneFixed, Name: names[i]})
		}
	}
}

// requestLanes gives each request a bar, a proxy's clients' requests
// together in the order the clients came.
func (b *modelBuilder) requestLanes() {
	bars := requestBars(b.steps, b.ax)
	clients := map[string]int{}
	for _, r := range bars {
		if _, ok := clients[r.client]; !ok {
			clients[r.client] = len(clients)
		}
	}
	sort.SliceStable(bars, func(i, j int) bool { return clients[bars[i].client] < clients[bars[j].client] })
	for _, r := range bars {
		b.reqs[r.n] = len(b.m.Lanes)
		name := r.label
		if r.client != "" {
			name = fmt.Sprintf("c%d %s", clients[r.client]+1, name)
		}
		b.m.Lanes = append(b.m.Lanes, lane{Kind: laneReq, Name: name, Sub: formatName(r.format), Title: strings.Join(r.title, "\n"),
			From: r.from, To: max(r.to, r.from+0.5), Class: r.class, End: r.end})
	}
}

// place puts step i's mark, if it has one, on its lane.
func (b *modelBuilder) place(i int, st trace.Step) {
	u := b.ax.u[i]
	add := func(laneIdx int, kind, class, label string) {
		if laneIdx < 0 {
			return
		}
		b.m.Marks = append(b.m.Marks, mark{Lane: laneIdx, U: u, Kind: kind, Class: class, Label: label,
			At: round3(float64(st.At.Microseconds()) / 1000), Title: stepTitle(st)})
	}
	reqLane, onReq := b.reqs[st.Req]
	if !onReq {
		reqLane = -1
	}
	switch st.Kind {
	case trace.KindRead:
		add(reqLane, "read", "", "")
	case trace.KindEvent:
		add(reqLane, "event", cssClass(st.Event.Type), "")
		b.pods.event(st, u)
	case trace.KindFrame:
		if onReq {
			add(reqLane, "frame", "", "")
		} else {
			add(b.fixed[laneConn], "frame", "", "")
		}
	case trace.KindConn:
		add(b.fixed[laneConn], "conn", "", "")
	case trace.KindPush:
		add(b.fixed[lanePushes], "push", "", "")
	case trace.KindDecision:
		b.decision(i, st, add)
	case trace.KindStall:
		label := "stall"
		if s := st.Stall; s != nil && s.Verdict != "" {
			label = "stall: " + s.Verdict
		}
		if onReq {
			add(reqLane, "stall", stallClass(st.Stall), label)
		}
		add(b.fixed[laneStudy], "stall", stallClass(st.Stall), label)
	case trace.KindMissed:
		label := "missed"
		if m := st.Missed; m != nil {
			label = "missed " + m.Name
		}
		add(b.fixed[laneStudy], "missed", "", label)
		b.pods.missed(st, u)
	}
}

func (b *modelBuilder) decision(i int, st trace.Step, add func(int, string, string, string)) {
	d, reflector := st.Decision, b.fixed[laneReflector]
	switch d.Step {
	case "resource-version":
		add(b.fixed[laneRV], "rv", "", d.ResourceVersion)
	case "backoff":
		add(reflector, "backoff", "", "backoff "+text.Duration(d.Wait))
		last := &b.m.Marks[len(b.m.Marks)-1]
		last.W = max(b.backoffEnd(i)-last.U, 0.5)
	case "relist", "store-refused", "fallback-list":
		add(reflector, "relist", "", d.Step)
	case "replace":
		add(reflector, "replace", "", "")
	default:
		add(reflector, "decision", "", "")
	}
}

// backoffEnd is where the backoff begun by step i ends: at the reflector's
// next step or request. Not at its time plus the wait: the wait may be cut
// short, and on a replay's clock it may take no time at all.
func (b *modelBuilder) backoffEnd(i int) float64 {
	for j := i + 1; j < len(b.steps); j++ {
		switch b.steps[j].Kind {
		case trace.KindRequest, trace.KindDecision, trace.KindStop:
			return b.ax.u[j]
		}
	}
	return b.ax.span
}

func stallClass(s *trace.Stall) string {
	if s == nil {
		return ""
	}
	switch s.Verdict {
	case "quiet", "overdue", "dead":
		return s.Verdict
	}
	return ""
}
