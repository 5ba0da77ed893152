package rundiff

import "fmt"

// RVMode is how resourceVersions are compared.
type RVMode string

const (
	// RVExact compares resourceVersions as they are: two reads of one
	// recording, or a run and its replay, agree on every version.
	RVExact RVMode = "exact"
	// RVRank compares each by its rank among its own run's (see rankRV):
	// two recordings of one scenario on two clusters agree by rank, while
	// their numbers differ by the writes each cluster's start-up made.
	RVRank RVMode = "rank"
)

// Options tune Compare; the zero value compares exactly.
type Options struct {
	RV RVMode
}

// Result is what Compare found.
type Result struct {
	A, B *Run
	RV   RVMode
	// Common is how many items the two runs share from their start.
	Common int
	// First is where they part, nil when they are equivalent.
	First *Divergence
	// Only holds, by kind, the items of each run that the other lacks.
	Only map[Kind]Only
	// End compares the states the runs end in; see FinalStates.
	End FinalStates
}

// FinalStates are the last states two runs were pushed. Runs that part on
// the way may still end in the same state: one that relisted saw fewer
// versions of its pods than one that watched every change, and holds the
// same pods at the same versions in the end, which is what a kubelet acts
// on.
type FinalStates struct {
	// A and B are each run's last push; nil for a run pushed nothing.
	A, B *Shown
	// Same says they hold the same pods at the same versions: exactly, or
	// by rank the same pods with their versions in the same order (each
	// version ranked among its own push's, since two runs that saw
	// different histories rank their versions differently).
	Same bool
}

// Equivalent reports whether the runs hold the same items in the same order.
func (r *Result) Equivalent() bool { return r.First == nil }

// Divergence is the first item at which two runs differ.
type Divergence struct {
	// Before is up to contextItems items both runs share just before it.
	Before []Pair
	// A and B are each run's item there; nil for a run that ended first.
	A, B *Shown
}

// Pair is an item both runs hold.
type Pair struct{ A, B Shown }

// Shown is one item as compared: where it is and its text.
type Shown struct {
	Where, Text string
}

// Only is what each run holds of one kind that the other lacks.
type Only struct {
	A, B []Shown
	// Approximate says the runs were too long for an ordered alignment
	// and the items were matched by count instead (see maxCells).
	Approximate bool
}

const contextItems = 3

// Compare lines a and b up item by item.
func Compare(a, b *Run, opts Options) (*Result, error) {
	mode := opts.RV
	if mode == "" {
		mode = RVExact
	}
	na, nb := rvNamer(exactRV), rvNamer(exactRV)
	switch mode {
	case RVExact:
	case RVRank:
		na, nb = rankRV(a), rankRV(b)
	default:
		return nil, fmt.Errorf("resourceVersion comparison %q: want %s or %s", mode, RVExact, RVRank)
	}
	ta, tb := shown(a, na), shown(b, nb)
	res := &Result{A: a, B: b, RV: mode, Only: map[Kind]Only{}}
	i := 0
	for i < len(ta) && i < len(tb) && ta[i].Text == tb[i].Text {
		i++
	}
	res.Common = i
	if i < len(ta) || i < len(tb) {
		d := &Divergence{}
		for j := max(0, i-contextItems); j < i; j++ {
			d.Before = append(d.Before, Pair{ta[j], tb[j]})
		}
		if i < len(ta) {
			d.A = &ta[i]
		}
		if i < len(tb) {
			d.B = &tb[i]
		}
		res.First = d
	}
	for _, k := range []Kind{KindRequest, KindEvent, KindPush} {
		res.Only[k] = onlyIn(ofKind(a, ta, k), ofKind(b, tb, k))
	}
	res.End = finalStates(a, b, mode)
	return res, nil
}

func finalStates(a, b *Run, mode RVMode) FinalStates {
	var end FinalStates
	la, lb := lastPush(a), lastPush(b)
	if la != nil {
		end.A = &Shown{Where: la.Where, Text: la.Text(exactRV)}
	}
	if lb != nil {
		end.B = &Shown{Where: lb.Where, Text: lb.Text(exactRV)}
	}
	if la != nil && lb != nil {
		if mode == RVRank {
			end.Same = la.Text(pushRank(la)) == lb.Text(pushRank(lb))
		} else {
			end.Same = end.A.Text == end.B.Text
		}
	}
	return end
}

func lastPush(run *Run) *Item {
	for i := len(run.Items) - 1; i >= 0; i-- {
		if run.Items[i].Kind == KindPush {
			return &run.Items[i]
		}
	}
	return nil
}

func shown(run *Run, rv rvNamer) []Shown {
	out := make([]Shown, len(run.Items))
	for i := range run.Items {
		out[i] = Shown{Where: run.Items[i].Where, Text: run.Items[i].Text(rv)}
	}
	return out
}

func ofKind(run *Run, s []Shown, k Kind) []Shown {
	var out []Shown
	for i := range run.Items {
		if run.Items[i].Kind == k {
			out = append(out, s[i])
		}
	}
	return out
}
