package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/fixture"
)

// podSet is what a client holds: each pod's namespace/name and the
// resourceVersion of the version it holds. A resourceVersion names one write,
// so equal sets mean the same pods at the same versions.
type podSet map[string]int64

func (s podSet) String() string {
	keys := slices.Sorted(maps.Keys(s))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s@%d", k, s[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// state is what the server held at one resourceVersion.
type state struct {
	rv   int64
	pods podSet
}

// timeline is every state the server had, in resourceVersion order; equal
// neighbours are merged into the first.
type timeline []state

func (tl timeline) final() state { return tl[len(tl)-1] }

// add appends s unless it repeats the last state.
func (tl timeline) add(s state) timeline {
	if len(tl) > 0 && maps.Equal(tl[len(tl)-1].pods, s.pods) {
		return tl
	}
	return append(tl, s)
}

// pushError says how a client's push breaks the rules: Rule is ruleState (a
// state the server never had) or ruleOrder (older than the push before).
type pushError struct {
	Push   int
	Pods   podSet
	Rule   string
	Reason string
}

const (
	ruleState = "state"
	ruleOrder = "order"
)

func (e *pushError) Error() string {
	return fmt.Sprintf("push %d %v breaks rule %q: %s", e.Push, e.Pods, e.Rule, e.Reason)
}

// check proves a client's pushes against tl: each is a state the server had,
// and none is older than the one before it (the pushes walk the timeline
// forward). It returns the index in tl of the last push's state.
func (tl timeline) check(pushes []podSet) (at int, err error) {
	at = 0
	for i, p := range pushes {
		next := slices.IndexFunc(tl[at:], func(s state) bool { return maps.Equal(s.pods, p) })
		if next >= 0 {
			at += next
			continue
		}
		if back := slices.IndexFunc(tl[:at], func(s state) bool { return maps.Equal(s.pods, p) }); back >= 0 {
			return at, &pushError{i, p, ruleOrder, fmt.Sprintf("goes back in time: the state at resourceVersion %d, after a push of the state at %d", tl[back].rv, tl[at].rv)}
		}
		return at, &pushError{i, p, ruleState, fmt.Sprintf("the server never had this state (%d states known, from %d to %d)", len(tl), tl[0].rv, tl.final().rv)}
	}
	return at, nil
}

// fixtureTimeline reads every state a recording shows: each listed state,
// each watch list's initial state, and the states between them that the
// recorded events make. A list that the events before it do not explain (a
// compaction hid what happened) starts again from what it lists.
func fixtureTimeline(t *testing.T, dir string) timeline {
	t.Helper()
	return timelineOf(t, fixtureSteps(t, dir))
}

// fixtureSteps reads what a recording shows, in resourceVersion order.
func fixtureSteps(t *testing.T, dir string) []step {
	t.Helper()
	rec, err := fixture.Load(dir)
	if err == nil {
		rec, err = rec.JSON() // a protobuf recording's bodies, as a JSON client reads them
	}
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	var steps []step
	for i, ex := range rec.Exchanges {
		if ex.Response.Status != 200 {
			continue
		}
		var body bytes.Buffer
		for _, c := range ex.Response.Chunks {
			body.Write(c.Data)
		}
		q := ex.Request.Query
		var s []step
		switch {
		case q.Get("watch") == "true" || q.Get("watch") == "1":
			s = watchSteps(body.Bytes(), q.Get("sendInitialEvents") == "true")
		default:
			s, err = listSteps(body.Bytes())
		}
		if err != nil {
			t.Fatalf("fixture %s exchange %d: %v", dir, i, err)
		}
		steps = append(steps, s...)
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.rv - b.rv) })
	return steps
}

func timelineOf(t *testing.T, steps []step) timeline {
	t.Helper()
	var tl timeline
	var cur podSet
	for _, s := range steps {
		switch {
		case s.snapshot != nil:
			cur = s.snapshot
		case cur == nil:
			continue // an event before any state is known
		case s.deleted:
			cur = clonePods(cur)
			delete(cur, s.key)
		default:
			cur = clonePods(cur)
			cur[s.key] = s.rv
		}
		tl = tl.add(state{s.rv, cur})
	}
	if len(tl) == 0 {
		t.Fatalf("the recording shows no state")
	}
	return tl
}

func clonePods(p podSet) podSet {
	out := maps.Clone(p)
	if out == nil {
		out = podSet{}
	}
	return out
}

// step is one thing a recording shows at a resourceVersion: a whole state, or
// a change to one pod.
type step struct {
	rv       int64
	snapshot podSet
	key      string
	deleted  bool
}

type wireMeta struct {
	Name            string            `json:"name"`
	Namespace       string            `json:"namespace"`
	ResourceVersion string            `json:"resourceVersion"`
	Annotations     map[string]string `json:"annotations"`
}

type wireObject struct {
	Metadata wireMeta `json:"metadata"`
	Items    []struct {
		Metadata wireMeta `json:"metadata"`
	} `json:"items"`
}

func listSteps(body []byte) ([]step, error) {
	var l wireObject
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, nil // a list cut short: it shows no state
	}
	rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("list resourceVersion %q: %w", l.Metadata.ResourceVersion, err)
	}
	pods := podSet{}
	for _, it := range l.Items {
		prv, err := strconv.ParseInt(it.Metadata.ResourceVersion, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("item resourceVersion %q: %w", it.Metadata.ResourceVersion, err)
		}
		pods[it.Metadata.Namespace+"/"+it.Metadata.Name] = prv
	}
	return []step{{rv: rv, snapshot: pods}}, nil
}

// watchSteps reads a watch body up to its first unreadable byte (a recorded
// cut). A watch list's initial events make one state, at the bookmark that
// closes them.
func watchSteps(body []byte, watchList bool) []step {
	var out []step
	initial := podSet{}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var ev struct {
			Type   string     `json:"type"`
			Object wireObject `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return out // the end, or a recorded cut
		}
		m := ev.Object.Metadata
		rv, err := strconv.ParseInt(m.ResourceVersion, 10, 64)
		if err != nil {
			continue
		}
		key := m.Namespace + "/" + m.Name
		switch {
		case ev.Type == "BOOKMARK" && watchList && m.Annotations["k8s.io/initial-events-end"] == "true":
			out = append(out, step{rv: rv, snapshot: initial})
			watchList = false
		case ev.Type == "BOOKMARK" || ev.Type == "ERROR":
		case watchList:
			initial[key] = rv
		default:
			out = append(out, step{rv: rv, key: key, deleted: ev.Type == "DELETED"})
		}
	}
}
