package cli

import (
	"flag"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fault"
)

// replayFaults are the fault flags of serve and watch --replay.
type replayFaults struct {
	specs base.StringList
	file  string
	http2 bool
}

func faultKinds() string {
	names := make([]string, len(fault.Kinds))
	for i, k := range fault.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func (r *replayFaults) register(fs *flag.FlagSet, prefix string) {
	fs.Var(&r.specs, "fault", prefix+"inject a `fault` (repeatable), KIND[:key=value,...], e.g. cut:events=3,on=watch,nth=2;"+
		" kinds: "+faultKinds()+"; keys: on (watch|list), nth, events, bytes, wait, size, status")
	fs.StringVar(&r.file, "faults", "", prefix+"a YAML `file` of fault specs: faults: [cut:events=3, ...]")
	fs.BoolVar(&r.http2, "http2", false, prefix+"serve HTTP/2 over TLS (a certificate made for this run) instead of HTTP/1.1")
}

// planFaults reads the flags into a fault plan; nil when no fault is asked for.
func (r *replayFaults) planFaults(cmd string) (*fault.Plan, error) {
	var faults []fault.Fault
	if r.file != "" {
		fs, err := fault.LoadScenario(r.file)
		if err != nil {
			return nil, err
		}
		faults = fs
	}
	for _, spec := range r.specs {
		f, err := fault.Parse(spec)
		if err != nil {
			return nil, base.Usagef(cmd, "--fault: %v", err)
		}
		faults = append(faults, f)
	}
	if len(faults) == 0 {
		return nil, nil
	}
	return fault.NewPlan(faults...), nil
}
