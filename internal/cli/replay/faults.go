package replay

import (
	"flag"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fault"
)

// Faults are the fault flags of serve and watch --replay.
type Faults struct {
	Specs base.StringList // --fault
	File  string          // --faults
	HTTP2 bool            // --http2
}

func faultKinds() string {
	names := make([]string, len(fault.Kinds))
	for i, k := range fault.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// Register defines the flags on fs, each usage beginning with prefix.
func (r *Faults) Register(fs *flag.FlagSet, prefix string) {
	fs.Var(&r.Specs, "fault", prefix+"inject a `fault` (repeatable), KIND[:key=value,...], e.g. cut:events=3,on=watch,nth=2;"+
		" kinds: "+faultKinds()+"; keys: on (watch|list), nth, events, bytes, wait, size, status")
	fs.StringVar(&r.File, "faults", "", prefix+"a YAML `file` of fault specs: faults: [cut:events=3, ...]")
	fs.BoolVar(&r.HTTP2, "http2", false, prefix+"serve HTTP/2 over TLS (a certificate made for this run) instead of HTTP/1.1")
}

// Plan reads the flags into a fault plan; nil when no fault is asked for.
// cmd names the command in a usage error.
func (r *Faults) Plan(cmd string) (*fault.Plan, error) {
	var faults []fault.Fault
	if r.File != "" {
		fs, err := fault.LoadScenario(r.File)
		if err != nil {
			return nil, err
		}
		faults = fs
	}
	for _, spec := range r.Specs {
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
