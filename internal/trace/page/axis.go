package page

import (
	"math"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// The page's time axis is not linear. Drawn to scale, a run's few seconds of
// backoff swallow its milliseconds of traffic, and at --speed 0 every step
// falls on the same pixel. So the axis is measured in slots, the room one
// mark needs: each step gets at least its kind's slots after the one
// before, time adds slots in proportion up to a pause, and a longer pause
// is drawn as a break of nearly fixed width, marked and labelled with its
// length.
const (
	// slotsPerSecond is the axis's scale between pauses: 20 ms per slot.
	slotsPerSecond = 50
	// pauseAfter is the silence past which time is no longer drawn to scale.
	pauseAfter = 500 * time.Millisecond
	// A pause is drawn pauseSlots wide, plus pauseSlotsPerDoubling for each
	// doubling of its length past pauseAfter: 1 s and 100 s stay apart but
	// neither takes the page.
	pauseSlots            = 12
	pauseSlotsPerDoubling = 3
)

// stepSlots is the room a step takes after the one before it, even when
// both came at the same instant.
func stepSlots(st trace.Step) float64 {
	switch st.Kind {
	case trace.KindRequest, trace.KindEvent, trace.KindStall, trace.KindMissed:
		return 1
	case trace.KindRead:
		return 0.2
	case trace.KindFrame:
		return 0.1
	case trace.KindStart, trace.KindStop:
		return 0
	case trace.KindDecision:
		if st.Decision.Step == "resource-version" {
			return 0.3
		}
	}
	return 0.5
}

// timeSlots is the room a silence of d takes: d to scale up to pauseAfter,
// then a break whose width grows with the logarithm of d.
func timeSlots(d time.Duration) (slots float64, pause bool) {
	if d <= pauseAfter {
		return max(d.Seconds(), 0) * slotsPerSecond, false
	}
	return pauseSlots + pauseSlotsPerDoubling*math.Log2(float64(d)/float64(pauseAfter)), true
}

// axisBreak is a pause drawn compressed: from U0 to U1 on the axis, Len
// long in time.
type axisBreak struct {
	U0  float64 `json:"a"`
	U1  float64 `json:"b"`
	Len string  `json:"x"`
}

// tick is a time written on the axis at a step's place.
type tick struct {
	U     float64 `json:"u"`
	Label string  `json:"x"`
}

// axis places each step of a run (by its index) on the axis.
type axis struct {
	u      []float64
	span   float64
	breaks []axisBreak
	ticks  []tick
}

// layoutAxis gives every step its place. Steps are placed in the order the
// trace tells them, which is not always the order of their times (a watch's
// reads are told when the reflector applies them), so the time that counts
// is the latest seen so far.
func layoutAxis(steps []trace.Step) *axis {
	a := &axis{u: make([]float64, len(steps))}
	var u float64
	var latest time.Duration
	lastTick := ""
	for i, st := range steps {
		silence := st.At - latest
		latest = max(latest, st.At)
		slots, pause := timeSlots(silence)
		if pause {
			from := u + 0.5
			u = from + slots
			a.breaks = append(a.breaks, axisBreak{U0: round3(from), U1: round3(u), Len: text.Duration(silence)})
		} else {
			u += slots
		}
		if i > 0 {
			u += stepSlots(st)
		}
		a.u[i] = round3(u)
		if label := tickLabel(latest); label != lastTick {
			a.ticks = append(a.ticks, tick{U: a.u[i], Label: label})
			lastTick = label
		}
	}
	a.span = round3(u + 1)
	return a
}

// tickLabel writes a time on the axis, to the millisecond.
func tickLabel(at time.Duration) string {
	return text.Duration(at)
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
