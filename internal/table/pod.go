package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// pod is what the printer reads of a core/v1 Pod. Everything else of the
// pod rides along untouched in the row's object.
type pod struct {
	Kind     string          `json:"kind"`
	Metadata json.RawMessage `json:"metadata"`
	Spec     struct {
		NodeName       string          `json:"nodeName"`
		Containers     []struct{}      `json:"containers"`
		InitContainers []initContainer `json:"initContainers"`
		ReadinessGates []struct {
			ConditionType string `json:"conditionType"`
		} `json:"readinessGates"`
	} `json:"spec"`
	Status struct {
		Phase             string `json:"phase"`
		Reason            string `json:"reason"`
		NominatedNodeName string `json:"nominatedNodeName"`
		PodIP             string `json:"podIP"`
		PodIPs            []struct {
			IP string `json:"ip"`
		} `json:"podIPs"`
		Conditions            []condition       `json:"conditions"`
		InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
		ContainerStatuses     []containerStatus `json:"containerStatuses"`
	} `json:"status"`

	meta podMeta
}

type podMeta struct {
	Name              string            `json:"name"`
	ResourceVersion   string            `json:"resourceVersion"`
	CreationTimestamp string            `json:"creationTimestamp"`
	DeletionTimestamp json.RawMessage   `json:"deletionTimestamp"`
	Annotations       map[string]string `json:"annotations"`
}

type initContainer struct {
	Name          string `json:"name"`
	RestartPolicy string `json:"restartPolicy"`
}

type condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

type containerStatus struct {
	Name         string         `json:"name"`
	State        containerState `json:"state"`
	LastState    containerState `json:"lastState"`
	Ready        bool           `json:"ready"`
	RestartCount int64          `json:"restartCount"`
	Started      *bool          `json:"started"`
}

// containerState keeps which of its members are set: the printer tells a
// running container from one with no state at all.
type containerState struct {
	Waiting *struct {
		Reason string `json:"reason"`
	} `json:"waiting"`
	Running    *struct{} `json:"running"`
	Terminated *struct {
		Reason     string `json:"reason"`
		ExitCode   int64  `json:"exitCode"`
		Signal     int64  `json:"signal"`
		FinishedAt string `json:"finishedAt"`
	} `json:"terminated"`
}

// errNotJSON wraps a document that is not JSON at all.
var errNotJSON = errors.New("table: not JSON")

// decodePod reads doc. A member of the wrong type is left at its zero value
// (encoding/json carries on past it), as a pod missing it would be: only
// malformed JSON is an error.
func decodePod(doc []byte) (*pod, error) {
	p := &pod{}
	if err := lenient(json.Unmarshal(doc, p)); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotJSON, err)
	}
	if len(p.Metadata) > 0 {
		if err := lenient(json.Unmarshal(p.Metadata, &p.meta)); err != nil {
			return nil, fmt.Errorf("%w: %w", errNotJSON, err)
		}
	}
	return p, nil
}

// lenient drops the type errors encoding/json reports after decoding all
// it could.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// Condition types and the reasons the printer looks for.
const (
	podScheduled      = "PodScheduled"
	podInitialized    = "Initialized"
	podReady          = "Ready"
	schedulingGated   = "SchedulingGated"
	nodeLost          = "NodeLost" // the node lifecycle controller's reason for a pod on an unreachable node
	podInitializing   = "PodInitializing"
	restartAlways     = "Always"
	phaseSucceeded    = "Succeeded"
	phaseFailed       = "Failed"
	reasonCompleted   = "Completed"
	conditionTrue     = "True"
	noValue           = "<none>"
	unknownTimestamp  = "<unknown>"
	initialEventsEnd  = "k8s.io/initial-events-end"
	initialEventsDone = "true"
)

// rowCondition is a row's condition, which the apiserver sets on pods that
// have finished: clients may dim or hide such rows.
type rowCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

var (
	succeededRow = []rowCondition{{Type: "Completed", Status: conditionTrue, Reason: phaseSucceeded, Message: "The pod has completed successfully."}}
	failedRow    = []rowCondition{{Type: "Completed", Status: conditionTrue, Reason: phaseFailed, Message: "The pod failed."}}
)

// cells are a pod's row: its cells in column order, and the row's
// conditions.
func (p *pod) cells(now time.Time) ([]string, []rowCondition) {
	st := &p.Status
	var rowConds []rowCondition
	switch st.Phase {
	case phaseSucceeded:
		rowConds = succeededRow
	case phaseFailed:
		rowConds = failedRow
	}
	c := p.count()
	restarts := strconv.FormatInt(c.restarts, 10)
	if c.restarts != 0 && !c.lastRestart.IsZero() {
		restarts += " (" + Age(now.Sub(c.lastRestart)) + " ago)"
	}
	age := unknownTimestamp
	if t := parseTime(p.meta.CreationTimestamp); !t.IsZero() {
		age = Age(now.Sub(t))
	}
	return []string{
		p.meta.Name,
		strconv.Itoa(c.ready) + "/" + strconv.Itoa(c.total),
		p.status(c.reason),
		restarts,
		age,
		orNone(p.ip()),
		orNone(p.Spec.NodeName),
		orNone(st.NominatedNodeName),
		p.readinessGates(),
	}, rowConds
}

// counts is what the containers say: READY's two numbers, the restarts and
// when the last restarted container ended, and the reason the containers
// give (the pod's own when they give none).
type counts struct {
	ready, total int
	restarts     int64
	lastRestart  time.Time
	reason       string
}

// count walks the init containers, then, once the pod is past them, the
// containers, as the printer does: the first init container not done gives
// STATUS while the pod initializes; after that the containers do, the first
// one listed winning.
func (p *pod) count() counts {
	st := &p.Status
	c := counts{total: len(p.Spec.Containers), reason: st.Phase}
	if st.Reason != "" {
		c.reason = st.Reason
	}
	for _, cond := range st.Conditions {
		if cond.Type == podScheduled && cond.Reason == schedulingGated {
			c.reason = schedulingGated
		}
	}
	sidecar := map[string]bool{}
	for _, ic := range p.Spec.InitContainers {
		// An init container with restartPolicy Always is a sidecar: it
		// runs beside the containers and counts among them.
		if ic.RestartPolicy == restartAlways {
			sidecar[ic.Name] = true
			c.total++
		}
	}
	// Restarts of sidecars still count once the pod is initialized; those
	// of plain init containers only while it initializes.
	var sidecarRestarts int64
	var sidecarLast time.Time
	initializing := false
	for i, cs := range st.InitContainerStatuses {
		c.restarts += cs.RestartCount
		ended := cs.lastEnded()
		c.lastRestart = later(c.lastRestart, ended)
		if sidecar[cs.Name] {
			sidecarRestarts += cs.RestartCount
			sidecarLast = later(sidecarLast, ended)
		}
		term := cs.State.Terminated
		if term != nil && term.ExitCode == 0 {
			continue // done
		}
		if sidecar[cs.Name] && cs.Started != nil && *cs.Started {
			if cs.Ready {
				c.ready++
			}
			continue
		}
		initializing = true
		switch w := cs.State.Waiting; {
		case term != nil:
			c.reason = "Init:" + terminatedReason(term.Reason, term.Signal, term.ExitCode)
		case w != nil && w.Reason != "" && w.Reason != podInitializing:
			c.reason = "Init:" + w.Reason
		default:
			c.reason = "Init:" + strconv.Itoa(i) + "/" + strconv.Itoa(len(p.Spec.InitContainers))
		}
		break
	}
	if initializing && !p.firstConditionTrue(podInitialized) {
		return c
	}
	c.restarts, c.lastRestart = sidecarRestarts, sidecarLast
	running := false
	errorReason := ""
	// From the last container to the first, so that the first one with
	// something to say has the last word.
	for i := len(st.ContainerStatuses) - 1; i >= 0; i-- {
		cs := &st.ContainerStatuses[i]
		c.restarts += cs.RestartCount
		c.lastRestart = later(c.lastRestart, cs.lastEnded())
		switch w, term := cs.State.Waiting, cs.State.Terminated; {
		case w != nil && w.Reason != "":
			c.reason = w.Reason
		case term != nil:
			c.reason = terminatedReason(term.Reason, term.Signal, term.ExitCode)
			if term.ExitCode != 0 {
				errorReason = c.reason
			}
		case cs.Ready && cs.State.Running != nil:
			running = true
			c.ready++
		}
	}
	// A pod whose first container completed while others run is not
	// completed.
	if c.reason == reasonCompleted {
		switch {
		case running && p.anyConditionTrue(podReady):
			c.reason = "Running"
		case errorReason != "":
			c.reason = errorReason
		case running:
			c.reason = "NotReady"
		}
	}
	return c
}

// status is STATUS: the containers' reason, unless the pod is being
// deleted, which says more.
func (p *pod) status(reason string) string {
	if !p.deleting() {
		return reason
	}
	switch {
	case p.Status.Reason == nodeLost:
		return "Unknown"
	case p.Status.Phase != phaseSucceeded && p.Status.Phase != phaseFailed:
		return "Terminating"
	}
	return reason
}

func (p *pod) deleting() bool {
	d := p.meta.DeletionTimestamp
	return len(d) > 0 && string(d) != "null"
}

// terminatedReason is what a terminated container says of itself: its
// reason, or else the signal or the exit code that ended it.
func terminatedReason(reason string, signal, exitCode int64) string {
	switch {
	case reason != "":
		return reason
	case signal != 0:
		return "Signal:" + itoa(signal)
	}
	return "ExitCode:" + itoa(exitCode)
}

// firstConditionTrue reports whether the first condition of type typ is
// True: how the printer reads Initialized.
func (p *pod) firstConditionTrue(typ string) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == typ {
			return cond.Status == conditionTrue
		}
	}
	return false
}

// anyConditionTrue reports whether some condition of type typ is True: how
// the printer reads Ready.
func (p *pod) anyConditionTrue(typ string) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == typ && cond.Status == conditionTrue {
			return true
		}
	}
	return false
}

// ip is the pod's first address. The apiserver keeps podIPs in step with
// podIP when it stores a pod; a pod written by hand with podIP only reads
// as the apiserver would have stored it.
func (p *pod) ip() string {
	if len(p.Status.PodIPs) > 0 {
		return p.Status.PodIPs[0].IP
	}
	return p.Status.PodIP
}

// readinessGates is "true/named" over the gates the spec names, each
// judged by the first condition of its type.
func (p *pod) readinessGates() string {
	gates := p.Spec.ReadinessGates
	if len(gates) == 0 {
		return noValue
	}
	met := 0
	for _, g := range gates {
		for _, cond := range p.Status.Conditions {
			if cond.Type == g.ConditionType {
				if cond.Status == conditionTrue {
					met++
				}
				break
			}
		}
	}
	return strconv.Itoa(met) + "/" + strconv.Itoa(len(gates))
}

// lastEnded is when the container's previous run ended, zero if it never
// ended before.
func (cs *containerStatus) lastEnded() time.Time {
	if t := cs.LastState.Terminated; t != nil {
		return parseTime(t.FinishedAt)
	}
	return time.Time{}
}

// initialEventsEnd reports the bookmark that ends a watch list's initial
// events, whose row always carries its metadata.
func (p *pod) initialEventsEnd() bool {
	return p.meta.Annotations[initialEventsEnd] == initialEventsDone
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// parseTime reads a timestamp as the apiserver writes one (RFC 3339, to the
// second); anything else reads as unset.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func orNone(s string) string {
	if s == "" {
		return noValue
	}
	return s
}
