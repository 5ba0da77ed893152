package watchcmd

import (
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/trace/gap"
)

// recordingLedger gives a replay's trace the recording's every event, so
// that its gap audit can tell the pods that came and went while the client
// was away (a cut, an injected 410), beside what a relisted state shows.
type recordingLedger struct{ srv *fixture.Server }

func (recordingLedger) Source() string { return "recording" }

func (l recordingLedger) Between(from, to string) []gap.LedgerEntry {
	evs := l.srv.Between(from, to)
	out := make([]gap.LedgerEntry, 0, len(evs))
	for _, e := range evs {
		out = append(out, gap.LedgerEntry{Type: e.Type, Namespace: e.Namespace, Name: e.Name, ResourceVersion: e.ResourceVersion})
	}
	return out
}
