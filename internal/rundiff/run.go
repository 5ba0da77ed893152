package rundiff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is what an Item is.
type Kind string

// The kinds of item.
const (
	KindRequest Kind = "request"
	KindEvent   Kind = "event"
	KindPush    Kind = "push"
)

// Run is one run read as items, in the order its client met them.
type Run struct {
	// Path is the file or folder it was read from; Form is "recording" or
	// "trace".
	Path, Form string
	Items      []Item
}

// Item is one request, watch event or push. Only the members of its Kind
// are set.
type Item struct {
	Kind Kind
	// Where finds the item in its input: "exchange 3", "exchange 3 event 2"
	// (each counted from 1, as a trace numbers its requests), "line 17".
	Where string

	// A request: its shape (method, path, query but for resourceVersion and
	// timeoutSeconds), the resourceVersion it asked for (with "-" when it
	// asked none) and its answer's status (0 when none came).
	Shape  string
	RV     string
	Status int

	// An event: its type and pod (namespace/name), and RV; an ERROR's Code.
	Type string
	Pod  string
	Code int

	// A push: RV, and every pod of the pushed set, sorted.
	Pods []PodAt
}

// PodAt is a pod at a resourceVersion.
type PodAt struct{ Pod, RV string }

// Text is the item in one line, each resourceVersion written by rv.
func (it *Item) Text(rv func(string) string) string {
	switch it.Kind {
	case KindRequest:
		s := fmt.Sprintf("request %s rv=%s", it.Shape, rv(it.RV))
		if it.Status != 0 {
			s += " -> " + strconv.Itoa(it.Status)
		}
		return s
	case KindEvent:
		if it.Type == "ERROR" {
			return fmt.Sprintf("event ERROR code=%d", it.Code)
		}
		if it.Pod == "" || it.Type == "BOOKMARK" {
			return fmt.Sprintf("event %s rv=%s", it.Type, rv(it.RV))
		}
		return fmt.Sprintf("event %s %s rv=%s", it.Type, it.Pod, rv(it.RV))
	default:
		pods := make([]string, len(it.Pods))
		for i, p := range it.Pods {
			pods[i] = p.Pod + "@" + rv(p.RV)
		}
		return fmt.Sprintf("push rv=%s [%s]", rv(it.RV), strings.Join(pods, " "))
	}
}

// pushRank names each resourceVersion of push by its rank among the
// push's own versions (its pods' and its own), as rankRV ranks a run's.
func pushRank(push *Item) rvNamer {
	run := &Run{Items: []Item{*push}}
	return rankRV(run)
}

// rvNamer writes resourceVersions for comparison: as they are, or by rank.
type rvNamer func(string) string

func exactRV(rv string) string { return rv }

// rankRV names each resourceVersion of run by its place among the run's
// anchors: the versions of objects (in events and pushes) and of pushed
// states, which two runs of one scenario share in number and order. An
// anchor is "#N", its rank; any other version (a bookmark's, a request's
// that falls between writes of other resources) is "#N+", after anchor N,
// or "#-" before all, so a bookmark that came at a different distance from
// the last write still lines up.
func rankRV(run *Run) rvNamer {
	var anchors []uint64
	add := func(rv string) {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			anchors = append(anchors, n)
		}
	}
	for i := range run.Items {
		it := &run.Items[i]
		switch {
		case it.Kind == KindEvent && it.Type != "BOOKMARK" && it.Type != "ERROR":
			add(it.RV)
		case it.Kind == KindPush:
			add(it.RV)
			for _, p := range it.Pods {
				add(p.RV)
			}
		}
	}
	slices.Sort(anchors)
	anchors = slices.Compact(anchors)
	return func(rv string) string {
		n, err := strconv.ParseUint(rv, 10, 64)
		if err != nil {
			return rv // "", "-", "0" stays as it is, as does a version that is not a number
		}
		if n == 0 {
			return "0"
		}
		i, found := slices.BinarySearch(anchors, n)
		switch {
		case found:
			return "#" + strconv.Itoa(i)
		case i == 0:
			return "#-"
		default:
			return "#" + strconv.Itoa(i-1) + "+"
		}
	}
}
