package model

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podwatch/podwatch/rest/api"
)

// Push is one recorded push of an undelta store: the pods it held and the
// resourceVersion it said they reflect.
type Push struct {
	RV   string
	Pods []Pod
	At   time.Time // on the pushing goroutine's clock
}

// Checker records every push of an undelta store and proves them against a
// History: each push is the state of Node at the push's resourceVersion
// (so a state the server really had), no push is older than the one before,
// and the last equals the final state. Push is safe to call from any
// goroutine; the checks read what was recorded so far, so call them once the
// history and the pushes are complete.
type Checker struct {
	hist *History
	node string
	// IgnoreUID compares pods without their UID, for a truth that does not
	// know them (an admin client that saw only resourceVersions).
	IgnoreUID bool

	mu     sync.Mutex
	pushes []Push
}

// NewChecker returns a checker of the pods on node ("" for all) against h.
func NewChecker(h *History, node string) *Checker { return &Checker{hist: h, node: node} }

// Push records one push; it has the shape of a cache.PushFunc[*api.Pod].
func (c *Checker) Push(items []*api.Pod, rv string) {
	pods := make([]Pod, len(items))
	for i, p := range items {
		pods[i] = FromAPI(p)
	}
	c.mu.Lock()
	c.pushes = append(c.pushes, Push{RV: rv, Pods: pods, At: time.Now()})
	c.mu.Unlock()
}

// Pushes returns what was pushed so far.
func (c *Checker) Pushes() []Push {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.pushes)
}

// Violation is a push that breaks a rule: "state" (not the server's state at
// its version), "order" (older than the push before) or "final" (the last push
// is not the final state).
type Violation struct {
	Push   int // index in Pushes, from 0
	RV     string
	Rule   string
	Detail string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("push %d at resourceVersion %q breaks rule %q: %s", v.Push, v.RV, v.Rule, v.Detail)
}

// maxViolations bounds how many violations Check reports; the first says most.
const maxViolations = 5

// Check proves every push recorded so far: its state and its order. It returns
// nil or the violations found (*Violation, joined).
func (c *Checker) Check() error {
	pushes := c.Pushes()
	var errs []error
	prev := int64(-1)
	for i, p := range pushes {
		if len(errs) >= maxViolations {
			break
		}
		rv, err := strconv.ParseInt(p.RV, 10, 64)
		if err != nil {
			errs = append(errs, &Violation{i, p.RV, "state", "the resourceVersion is not a number"})
			continue
		}
		if rv < prev {
			errs = append(errs, &Violation{i, p.RV, "order", fmt.Sprintf("the push before was at %d", prev)})
		}
		prev = max(prev, rv)
		want, ok := c.hist.StateAt(rv, c.node)
		if !ok {
			errs = append(errs, &Violation{i, p.RV, "state", fmt.Sprintf("the history starts at %d", c.hist.Start())})
			continue
		}
		if d := c.diff(want, p.Pods); d != "" {
			errs = append(errs, &Violation{i, p.RV, "state", d + c.near(p.Pods)})
		}
	}
	return errors.Join(errs...)
}

// CheckFinal proves that the last push holds the history's final state.
func (c *Checker) CheckFinal() error {
	pushes := c.Pushes()
	want, last := c.hist.Current(c.node)
	if len(pushes) == 0 {
		return &Violation{-1, "", "final", fmt.Sprintf("nothing was pushed; the final state at %d has %d pods", last, len(want))}
	}
	p := pushes[len(pushes)-1]
	if d := c.diff(want, p.Pods); d != "" {
		return &Violation{len(pushes) - 1, p.RV, "final", fmt.Sprintf("not the final state at %d: %s", last, d)}
	}
	return nil
}

// SettledAt is when the pushes settled on the final state: the time of the
// first push from which every push holds it. ok is false if the last push
// does not.
func (c *Checker) SettledAt() (at time.Time, ok bool) {
	pushes := c.Pushes()
	want, _ := c.hist.Current(c.node)
	for i := len(pushes) - 1; i >= 0 && c.diff(want, pushes[i].Pods) == ""; i-- {
		at, ok = pushes[i].At, true
	}
	return at, ok
}

// diff says how got differs from want, "" if it does not.
func (c *Checker) diff(want, got []Pod) string {
	if c.IgnoreUID {
		want, got = withoutUID(want), withoutUID(got)
	}
	if slices.Equal(want, got) {
		return ""
	}
	var missing, extra []string
	for _, p := range want {
		if !slices.Contains(got, p) {
			missing = append(missing, p.String())
		}
	}
	for _, p := range got {
		if !slices.Contains(want, p) {
			extra = append(extra, p.String())
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return "the same pods, out of order"
	}
	return fmt.Sprintf("missing [%s]; not in that state [%s]", strings.Join(missing, "; "), strings.Join(extra, "; "))
}

// near names the versions whose state got is, if any, to tell a push labelled
// with the wrong version from one that was never a state at all.
func (c *Checker) near(got []Pod) string {
	var at []string
	for rv := c.hist.Start(); rv <= c.hist.Last(); rv++ {
		if want, _ := c.hist.StateAt(rv, c.node); c.diff(want, got) == "" {
			at = append(at, strconv.FormatInt(rv, 10))
			if len(at) == 5 {
				break
			}
		}
	}
	if len(at) == 0 {
		return " (the server never had that state)"
	}
	return " (the server had that state at " + strings.Join(at, ", ") + ")"
}

func withoutUID(pods []Pod) []Pod {
	out := slices.Clone(pods)
	for i := range out {
		out[i].UID = ""
	}
	return out
}
