package fault

import (
	"errors"
	"testing"
)

// FuzzParse: a spec is a Fault or a *SpecError, and a Fault's String parses
// back to the same Fault; never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"cut:events=3,on=watch,nth=2", "cut:bytes=100", "half-event:events=2", "gone", "gone-event:events=1",
		"429:wait=2500ms", "500:on=list", "stall:wait=30s,events=1", "drip:wait=10ms", "garbage:events=1",
		"oversized:size=2GiB", "html:status=502,on=list", "cut:events", "cut:events=-1", "oversized:size=99999999999GiB",
		" cut : events = 3 ", "cut:,", "stall:wait=-1s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		ft, err := Parse(spec)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %v is %T, want *SpecError", spec, err, err)
			}
			return
		}
		back, err := Parse(ft.String())
		if err != nil || back != ft {
			t.Fatalf("Parse(%q) = %+v, whose String %q parses to %+v, %v", spec, ft, ft.String(), back, err)
		}
	})
}
