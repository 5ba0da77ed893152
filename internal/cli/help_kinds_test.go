package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/trace"
)

// TestWatchHelpNamesEveryTraceKind holds watch --help's list of the JSON
// trace's kinds to the kinds a trace writes: a kind added to the trace and
// not to the help (as stall and missed once were) leaves a reader of the
// help unable to tell what a line of the JSON trace is.
func TestWatchHelpNamesEveryTraceKind(t *testing.T) {
	r := run(t, "watch", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	const lead = "with K one of "
	_, list, ok := strings.Cut(r.stdout, lead)
	if !ok {
		t.Fatalf("watch --help has no %q:\n%s", lead, r.stdout)
	}
	list, _, ok = strings.Cut(list, ".")
	if !ok {
		t.Fatalf("watch --help's list of kinds does not end with a full stop:\n%s", r.stdout)
	}
	got := strings.Split(strings.Join(strings.Fields(list), " "), ", ")
	var want []string
	for _, k := range []trace.Kind{
		trace.KindStart, trace.KindDecision, trace.KindRequest, trace.KindResponse,
		trace.KindConn, trace.KindFrame, trace.KindRead, trace.KindEvent,
		trace.KindBodyEnd, trace.KindPush, trace.KindStall, trace.KindMissed,
		trace.KindStop,
	} {
		want = append(want, string(k))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("watch --help's trace kinds (-want +got):\n%s", diff)
	}
}
