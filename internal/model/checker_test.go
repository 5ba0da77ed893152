package model

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

func apiPod(p Pod) *api.Pod {
	a, err := api.DecodePod(p.JSON())
	if err != nil {
		panic(err)
	}
	return a
}

func TestChecker(t *testing.T) {
	h := NewHistory(0)
	a1 := Pod{Namespace: "default", Name: "a", UID: "ua", RV: 1, Node: "n", Image: "i", Phase: "Pending"}
	b2 := Pod{Namespace: "default", Name: "b", UID: "ub", RV: 2, Node: "n", Image: "i", Phase: "Pending"}
	a3 := a1
	a3.RV, a3.Phase = 3, "Running"
	elsewhere := Pod{Namespace: "default", Name: "c", UID: "uc", RV: 4, Node: "other", Image: "i", Phase: "Pending"}
	b5 := b2
	b5.RV = 5
	for _, c := range []Change{{Op: Create, Pod: a1}, {Op: Create, Pod: b2}, {Op: Status, Pod: a3}, {Op: Create, Pod: elsewhere}, {Op: Delete, Pod: b5}} {
		if err := h.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	type push struct {
		pods []Pod
		rv   string
	}
	for _, tc := range []struct {
		name      string
		pushes    []push
		wantRules []string // of Check, then CheckFinal
	}{
		{"every state, in order", []push{{nil, "0"}, {[]Pod{a1}, "1"}, {[]Pod{a1, b2}, "2"}, {[]Pod{a3, b2}, "4"}, {[]Pod{a3}, "5"}}, nil},
		{"a list straight to the end", []push{{[]Pod{a3}, "9"}}, nil},
		{"a state the server never had", []push{{[]Pod{a3, b2}, "2"}, {[]Pod{a3}, "5"}}, []string{"state"}},
		{"the right pods under a wrong version", []push{{[]Pod{a1}, "3"}, {[]Pod{a3}, "5"}}, []string{"state"}},
		{"back in time", []push{{[]Pod{a1, b2}, "2"}, {[]Pod{a1}, "1"}, {[]Pod{a3}, "5"}}, []string{"order"}},
		{"another node's pod", []push{{[]Pod{a3, elsewhere}, "5"}}, []string{"state", "final"}},
		{"not the final state", []push{{[]Pod{a3, b2}, "3"}}, []string{"final"}},
		{"a version that is not a number", []push{{[]Pod{a3}, "x"}}, []string{"state"}},
		{"nothing pushed", nil, []string{"final"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChecker(h, "n")
			for _, p := range tc.pushes {
				var items []*api.Pod
				for _, pod := range p.pods {
					items = append(items, apiPod(pod))
				}
				c.Push(items, p.rv)
			}
			var got []string
			for _, err := range []error{c.Check(), c.CheckFinal()} {
				if err == nil {
					continue
				}
				for _, e := range unjoin(err) {
					var v *Violation
					if !errors.As(e, &v) {
						t.Fatalf("error %v is not a *Violation", e)
					}
					got = append(got, v.Rule)
				}
			}
			if diff := cmp.Diff(tc.wantRules, got); diff != "" {
				t.Fatalf("rules broken (-want +got):\n%s", diff)
			}
		})
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestFromAPIKeepsWhatTheCheckerCompares(t *testing.T) {
	p := Pod{Namespace: "ns", Name: "n", UID: "u", RV: 42, Node: "node-a", Image: "img:2", Phase: "Running", Deleting: true}
	if diff := cmp.Diff(p, FromAPI(apiPod(p))); diff != "" {
		t.Fatalf("round trip through the wire form (-want +got):\n%s", diff)
	}
	bad := &api.Pod{Metadata: meta.ObjectMeta{ResourceVersion: "x"}}
	if got := FromAPI(bad).RV; got != -1 {
		t.Fatalf("RV of a non-number: %d, want -1", got)
	}
}

func TestHistoryRefusesImpossibleChanges(t *testing.T) {
	h := NewHistory(10)
	p := Pod{Namespace: "d", Name: "p", RV: 11}
	for _, tc := range []struct {
		name string
		c    Change
	}{
		{"not after the start", Change{Op: Create, Pod: Pod{Namespace: "d", Name: "p", RV: 10}}},
		{"a change to a pod not there", Change{Op: Spec, Pod: p}},
		{"a delete of a pod not there", Change{Op: Delete, Pod: p}},
	} {
		if err := h.Add(tc.c); err == nil {
			t.Fatalf("%s: accepted", tc.name)
		}
	}
	if err := h.Add(Change{Op: Create, Pod: p}); err != nil {
		t.Fatal(err)
	}
	p.RV = 12
	if err := h.Add(Change{Op: Create, Pod: p}); err == nil {
		t.Fatalf("a second create of one pod was accepted")
	}
	if _, ok := h.StateAt(9, ""); ok {
		t.Fatalf("a state before the start was known")
	}
}
