package fault

import (
	"fmt"
	"os"
	"sync"

	"sigs.k8s.io/yaml"
)

// Plan hands each of its faults to one request: the Nth request of the fault's
// kind. It is safe for concurrent use.
type Plan struct {
	mu     sync.Mutex
	faults []Fault
	fired  []bool
	seen   map[string]int // requests seen per kind; "" counts all
}

// NewPlan plans faults; each strikes at most once.
func NewPlan(faults ...Fault) *Plan {
	return &Plan{faults: faults, fired: make([]bool, len(faults)), seen: map[string]int{}}
}

// Pick counts one request of kind ("watch" or "list") and returns the fault
// planned for it, if any. A request gets at most one fault: the first listed.
func (p *Plan) Pick(kind string) (Fault, bool) {
	if p == nil {
		return Fault{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[kind]++
	p.seen[""]++
	for i, f := range p.faults {
		on := f.target()
		if p.fired[i] || (on != "" && on != kind) {
			continue
		}
		if p.seen[on] == max(f.Nth, 1) {
			p.fired[i] = true
			return f, true
		}
	}
	return Fault{}, false
}

// Pending lists the faults that have not struck yet.
func (p *Plan) Pending() []Fault {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Fault
	for i, f := range p.faults {
		if !p.fired[i] {
			out = append(out, f)
		}
	}
	return out
}

// scenario is the file form: a list of specs, as the --fault flag takes them.
//
//	faults:
//	- cut:events=3,on=watch
//	- 429:wait=2s,on=list,nth=2
type scenario struct {
	Faults []string `json:"faults"`
}

// LoadScenario reads a YAML or JSON scenario file of fault specs.
func LoadScenario(path string) ([]Fault, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fault scenario: %w", err)
	}
	var sc scenario
	if err := yaml.UnmarshalStrict(data, &sc); err != nil {
		return nil, fmt.Errorf("fault scenario %s: %w", path, err)
	}
	out := make([]Fault, 0, len(sc.Faults))
	for i, spec := range sc.Faults {
		f, err := Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("fault scenario %s, fault %d: %w", path, i+1, err)
		}
		out = append(out, f)
	}
	return out, nil
}
