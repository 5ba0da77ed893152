package cache

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/api"
)

func TestUndeltaStorePushes(t *testing.T) {
	var log pushLog
	s := NewUndeltaStore(log.fn, MetaNamespaceKey[*api.Pod])
	steps := []struct {
		name string
		do   func() error
		want push
	}{
		{"replace sorts", func() error { return s.Replace([]*api.Pod{pod("c", "2"), pod("a", "3")}, "10") }, push{[]string{"a@3", "c@2"}, "10"}},
		{"add in order", func() error { return s.Add(pod("b", "11")) }, push{[]string{"a@3", "b@11", "c@2"}, "11"}},
		{"update in place", func() error { return s.Update(pod("c", "12")) }, push{[]string{"a@3", "b@11", "c@12"}, "12"}},
		{"delete moves RV on", func() error { return s.Delete(pod("a", "13")) }, push{[]string{"b@11", "c@12"}, "13"}},
		{"delete of a missing key still pushes", func() error { return s.Delete(pod("zz", "14")) }, push{[]string{"b@11", "c@12"}, "14"}},
		{"replace with nothing", func() error { return s.Replace(nil, "15") }, push{[]string{}, "15"}},
		{"add after empty", func() error { return s.Add(pod("a", "16")) }, push{[]string{"a@16"}, "16"}},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := log.get()
		if len(got) != i+1 {
			t.Fatalf("%s: %d pushes after %d operations, want one per operation", st.name, len(got), i+1)
		}
		if diff := cmp.Diff(st.want, got[i]); diff != "" {
			t.Fatalf("%s: push (-want +got):\n%s", st.name, diff)
		}
	}
	if got := s.PushedResourceVersion(); got != "16" {
		t.Fatalf("PushedResourceVersion = %q, want 16", got)
	}
	if p, ok := s.Get("default/a"); !ok || p.Metadata.ResourceVersion != "16" {
		t.Fatalf("Get(default/a) = %v, %v", p, ok)
	}
}

func TestUndeltaStoreRefusesOlderState(t *testing.T) {
	var log pushLog
	s := NewUndeltaStore(log.fn, MetaNamespaceKey[*api.Pod])
	if err := s.Replace([]*api.Pod{pod("a", "20")}, "20"); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"replace": func() error { return s.Replace(nil, "19") },
		"add":     func() error { return s.Add(pod("b", "5")) },
		"delete":  func() error { return s.Delete(pod("a", "18")) },
	} {
		err := op()
		var stale *StaleError
		if !errors.As(err, &stale) {
			t.Fatalf("%s older than the pushed state: got %v, want *StaleError", name, err)
		}
	}
	if got := log.get(); len(got) != 1 {
		t.Fatalf("refused changes pushed: %+v", got)
	}
	if got := s.List(); len(got) != 1 || got[0].Metadata.Name != "a" {
		t.Fatalf("refused changes were applied: %v", got)
	}
}

func TestReplaceWithDuplicateKeysKeepsTheLast(t *testing.T) {
	s := NewStore(MetaNamespaceKey[*api.Pod])
	if err := s.Replace([]*api.Pod{pod("a", "1"), pod("b", "2"), pod("a", "3")}, "3"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.List() {
		got = append(got, p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
	}
	if diff := cmp.Diff([]string{"a@3", "b@2"}, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
}

func TestMetaNamespaceKey(t *testing.T) {
	if got := MetaNamespaceKey(pod("x", "1")); got != "default/x" {
		t.Fatalf("got %q, want default/x", got)
	}
	cluster := pod("node-1", "1")
	cluster.Metadata.Namespace = ""
	if got := MetaNamespaceKey(cluster); got != "node-1" {
		t.Fatalf("got %q, want node-1", got)
	}
}
