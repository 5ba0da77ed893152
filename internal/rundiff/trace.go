package rundiff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/trace"
)

// traceLine is what the diff reads of one JSON trace step.
type traceLine struct {
	Kind     trace.Kind      `json:"kind"`
	Req      int             `json:"req"`
	Request  *trace.Request  `json:"request"`
	Response *trace.Response `json:"response"`
	Event    *trace.Event    `json:"event"`
	Push     *trace.Push     `json:"push"`
}

// maxTraceLine bounds one step's line; a push of a few thousand pods fits.
const maxTraceLine = 64 << 20

// ReadTrace reads a JSON trace (docs/TRACE.md) as a run: its requests, with
// the status of their responses, its events (but frames that could not be
// read) and its pushes, each pushed set rebuilt from the changes the push
// step tells. Errors are *InputError with the line.
func ReadTrace(path string, r io.Reader) (*Run, error) {
	run := &Run{Path: path, Form: "trace"}
	requests := map[int]int{} // a request's number -> its item
	state := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var s traceLine
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, &InputError{Path: path, Line: n, Err: err}
		}
		if s.Kind == "" {
			return nil, &InputError{Path: path, Line: n, Err: fmt.Errorf("not a trace step: no kind")}
		}
		where := fmt.Sprintf("line %d", n)
		if s.Req != 0 {
			where += fmt.Sprintf(" (req %d)", s.Req)
		}
		switch {
		case s.Kind == trace.KindRequest && s.Request != nil:
			it, err := traceRequest(s.Request)
			if err != nil {
				return nil, &InputError{Path: path, Line: n, Err: err}
			}
			it.Where = where
			requests[s.Req] = len(run.Items)
			run.Items = append(run.Items, it)
		case s.Kind == trace.KindResponse && s.Response != nil:
			if i, ok := requests[s.Req]; ok {
				run.Items[i].Status = s.Response.Status
			}
		case s.Kind == trace.KindEvent && s.Event != nil && s.Event.Error == "":
			run.Items = append(run.Items, traceEvent(s.Event, where))
		case s.Kind == trace.KindPush && s.Push != nil:
			it, err := tracePush(s.Push, state)
			if err != nil {
				return nil, &InputError{Path: path, Line: n, Err: err}
			}
			it.Where = where
			run.Items = append(run.Items, it)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &InputError{Path: path, Err: err}
	}
	return run, nil
}

func traceRequest(r *trace.Request) (Item, error) {
	q, err := url.ParseQuery(r.Query)
	if err != nil {
		return Item{}, fmt.Errorf("request query: %w", err)
	}
	rv := "-"
	if v, ok := q["resourceVersion"]; ok && len(v) > 0 {
		rv = v[0]
	}
	return Item{Kind: KindRequest, Shape: fixture.Shape(r.Method, r.Path, q), RV: rv}, nil
}

func traceEvent(e *trace.Event, where string) Item {
	it := Item{Kind: KindEvent, Where: where, Type: e.Type, RV: e.ResourceVersion}
	switch {
	case e.Type == "ERROR":
		it.RV = ""
		if e.Status != nil {
			it.Code = int(e.Status.Code)
		}
	case e.Type != "BOOKMARK":
		it.Pod = e.Namespace + "/" + e.Name
	}
	return it
}

// tracePush applies a push step's changes ("ns/name@rv", an update
// "ns/name@old->new") to state, the pods pushed so far, and returns the
// pushed set.
func tracePush(p *trace.Push, state map[string]string) (Item, error) {
	for _, a := range p.Added {
		pod, rv, ok := strings.Cut(a, "@")
		if !ok {
			return Item{}, fmt.Errorf("push: added %q: want namespace/name@resourceVersion", a)
		}
		state[pod] = rv
	}
	for _, u := range p.Updated {
		pod, rvs, ok := strings.Cut(u, "@")
		_, to, ok2 := strings.Cut(rvs, "->")
		if !ok || !ok2 {
			return Item{}, fmt.Errorf("push: updated %q: want namespace/name@old->new", u)
		}
		state[pod] = to
	}
	for _, r := range p.Removed {
		pod, _, ok := strings.Cut(r, "@")
		if !ok {
			return Item{}, fmt.Errorf("push: removed %q: want namespace/name@resourceVersion", r)
		}
		delete(state, pod)
	}
	if len(state) != p.Count {
		return Item{}, fmt.Errorf("push: count %d, but the changes told so far leave %d pods", p.Count, len(state))
	}
	it := Item{Kind: KindPush, RV: p.ResourceVersion, Pods: make([]PodAt, 0, len(state))}
	for pod, rv := range state {
		it.Pods = append(it.Pods, PodAt{Pod: pod, RV: rv})
	}
	slices.SortFunc(it.Pods, func(a, b PodAt) int { return strings.Compare(a.Pod, b.Pod) })
	return it, nil
}
