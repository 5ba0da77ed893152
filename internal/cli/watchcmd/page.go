package watchcmd

import (
	"github.com/podwatch/podwatch/internal/cli/session"
	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/trace/page"
)

// replayRun is what a replay's page records: the fixture, and each fault
// as the plan reads it (those of a --faults file included).
func replayRun(f *session.Flags) page.Run {
	run := page.Run{Fixture: f.Replay}
	if f.Faults.File != "" {
		faults, err := fault.LoadScenario(f.Faults.File)
		if err == nil { // Faults.Plan has read it already, and failed the run if it could not
			for _, ft := range faults {
				run.Faults = append(run.Faults, ft.String())
			}
		}
	}
	for _, spec := range f.Faults.Specs {
		if ft, err := fault.Parse(spec); err == nil {
			run.Faults = append(run.Faults, ft.String())
		}
	}
	return run
}
