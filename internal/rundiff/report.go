package rundiff

import (
	"fmt"
	"io"
	"strings"
)

// maxListed bounds the items listed of each kind and side in the summary.
const maxListed = 10

// WriteText writes res for a person: the first divergence with the items
// both runs shared just before it, then, by kind, the items only one run
// holds. Each item is named by where it is in its input.
func WriteText(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s (%s, %d items)\nB: %s (%s, %d items)\nresourceVersions compared %s\n",
		res.A.Path, res.A.Form, len(res.A.Items), res.B.Path, res.B.Form, len(res.B.Items), rvModeText(res.RV))
	if d := res.First; d == nil {
		fmt.Fprintf(&b, "equivalent: all %d items line up\n", res.Common)
	} else {
		fmt.Fprintf(&b, "first divergence after %d common items:\n", res.Common)
		for _, p := range d.Before {
			fmt.Fprintf(&b, "    %s\n      A %s, B %s\n", p.A.Text, p.A.Where, p.B.Where)
		}
		writeSide(&b, "A", d.A)
		writeSide(&b, "B", d.B)
		writeEnd(&b, res.End)
	}
	for _, k := range []Kind{KindRequest, KindEvent, KindPush} {
		o := res.Only[k]
		fmt.Fprintf(&b, "%s only in A: %d, only in B: %d", plural(k), len(o.A), len(o.B))
		if o.Approximate {
			b.WriteString(" (matched by count: too many to align in order)")
		}
		b.WriteByte('\n')
		writeOnly(&b, "A", o.A)
		writeOnly(&b, "B", o.B)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeEnd tells whether runs that part end in the same state anyway.
func writeEnd(b *strings.Builder, end FinalStates) {
	switch {
	case end.A == nil || end.B == nil:
		return // a run pushed nothing: the summary's counts say so
	case end.Same && end.A.Text == end.B.Text:
		fmt.Fprintf(b, "same final state: both end with %s\n      A %s, B %s\n", end.A.Text, end.A.Where, end.B.Where)
		return
	case end.Same:
		b.WriteString("same final state by rank: the same pods, their versions in the same order\n")
	default:
		b.WriteString("final states differ:\n")
	}
	fmt.Fprintf(b, "  A %s: %s\n  B %s: %s\n", end.A.Where, end.A.Text, end.B.Where, end.B.Text)
}

func writeSide(b *strings.Builder, side string, s *Shown) {
	if s == nil {
		fmt.Fprintf(b, "  %s has nothing more: its run ends here\n", side)
		return
	}
	fmt.Fprintf(b, "  %s %s: %s\n", side, s.Where, s.Text)
}

func writeOnly(b *strings.Builder, side string, items []Shown) {
	for i, s := range items {
		if i == maxListed {
			fmt.Fprintf(b, "  %s ... and %d more\n", side, len(items)-maxListed)
			return
		}
		fmt.Fprintf(b, "  %s %s: %s\n", side, s.Where, s.Text)
	}
}

func plural(k Kind) string {
	if k == KindPush {
		return "states pushed"
	}
	return string(k) + "s"
}

func rvModeText(m RVMode) string {
	if m == RVRank {
		return "by rank (#N: the Nth object or pushed version of its run; #N+: after it)"
	}
	return "exactly"
}
