package cli

import (
	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/trace"
)

// replayRun is what a replay's page records: the fixture, and each fault
// as the plan reads it (those of a --faults file included).
func replayRun(f *watchFlags) trace.Run {
	run := trace.Run{Fixture: f.replay}
	if f.faults.file != "" {
		faults, err := fault.LoadScenario(f.faults.file)
		if err == nil { // planFaults has read it already, and failed the run if it could not
			for _, ft := range faults {
				run.Faults = append(run.Faults, ft.String())
			}
		}
	}
	for _, spec := range f.faults.specs {
		if ft, err := fault.Parse(spec); err == nil {
			run.Faults = append(run.Faults, ft.String())
		}
	}
	return run
}
