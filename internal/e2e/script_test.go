package e2e

import (
	"context"
	"testing"

	"github.com/podwatch/podwatch/internal/cluster"
)

// script is the series of changes every watch path is checked against: pods
// created, relabelled, re-imaged, given a status, deleted gracefully and at
// once, on node-a and node-b, in two namespaces of their own.
type script struct {
	c        *cluster.Cluster
	nsA, nsB string
}

func newScript(c *cluster.Cluster, prefix string) *script {
	return &script{c: c, nsA: prefix + "-a", nsB: prefix + "-b"}
}

// scriptStep is one change. do makes it and returns the resourceVersion of
// its last write, always to a pod on node-a, so that a push at that version
// or later must show it. merged lists what podconfig's Incremental stream
// must publish for it, as "OP namespace/name".
type scriptStep struct {
	name   string
	do     func(ctx context.Context) (rv string, err error)
	merged []string
}

var zero = int64(0)

// setup makes the namespaces and the pods there before the watch starts,
// and returns the resourceVersion of the last write and what podconfig
// publishes for the first state.
func (s *script) setup(t *testing.T, ctx context.Context) (rv string, merged []string) {
	t.Helper()
	for _, ns := range []string{s.nsA, s.nsB} {
		if err := s.c.EnsureNamespace(ctx, ns); err != nil {
			t.Fatalf("EnsureNamespace %s: %v", ns, err)
		}
	}
	rv = s.create(t, ctx, s.nsA, "keep", node, map[string]string{"app": "keep"})
	s.create(t, ctx, s.nsA, "other-1", otherNode, map[string]string{"app": "other"})
	rv = s.create(t, ctx, s.nsB, "keep", node, nil)
	return rv, []string{"ADD " + s.nsA + "/keep", "ADD " + s.nsB + "/keep"}
}

func (s *script) create(t *testing.T, ctx context.Context, ns, name, node string, labels map[string]string) string {
	t.Helper()
	rv, err := s.c.CreatePod(ctx, ns, name, node, labels)
	if err != nil {
		t.Fatalf("CreatePod %s/%s on %s: %v", ns, name, node, err)
	}
	return rv
}

// all runs writes in order and returns the last one's resourceVersion.
func all(ctx context.Context, writes ...func(context.Context) (string, error)) (string, error) {
	var rv string
	for _, w := range writes {
		var err error
		if rv, err = w(ctx); err != nil {
			return "", err
		}
	}
	return rv, nil
}

func (s *script) steps() []scriptStep {
	c := s.c
	create := func(ns, name, node string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) { return c.CreatePod(ctx, ns, name, node, nil) }
	}
	labels := func(ns, name, v string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			return c.UpdatePodLabels(ctx, ns, name, map[string]string{"step": v})
		}
	}
	image := func(ns, name, img string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) { return c.SetPodImage(ctx, ns, name, img) }
	}
	phase := func(ns, name, p string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) { return c.SetPodPhase(ctx, ns, name, p) }
	}
	del := func(ns, name string, grace *int64) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) { return c.DeletePod(ctx, ns, name, grace) }
	}
	a, b := s.nsA, s.nsB
	return []scriptStep{
		{
			name: "create on both nodes in both namespaces",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, create(a, "other-2", otherNode), create(b, "other-3", otherNode),
					create(a, "pod-1", node), create(b, "pod-2", node))
			},
			merged: []string{"ADD " + a + "/pod-1", "ADD " + b + "/pod-2"},
		},
		{
			name: "labels",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, labels(a, "other-2", "2"), labels(a, "pod-1", "2"))
			},
			merged: []string{"UPDATE " + a + "/pod-1"},
		},
		{
			name: "image",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, image(b, "other-3", "registry.invalid/pause:2"), image(b, "pod-2", "registry.invalid/pause:2"))
			},
			merged: []string{"UPDATE " + b + "/pod-2"},
		},
		{
			name: "status through the status subresource",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, phase(a, "other-2", "Running"), phase(a, "pod-1", "Running"))
			},
			merged: []string{"RECONCILE " + a + "/pod-1"},
		},
		{
			// With no kubelet to confirm, only deletionTimestamp is set.
			name: "graceful delete",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, del(a, "other-2", nil), del(a, "pod-1", nil))
			},
			merged: []string{"DELETE " + a + "/pod-1"},
		},
		{
			// The server first writes the deletionTimestamp, then removes it.
			name: "delete a live pod at once",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, del(b, "other-3", &zero), del(b, "pod-2", &zero))
			},
			merged: []string{"DELETE " + b + "/pod-2", "REMOVE " + b + "/pod-2"},
		},
		{
			name: "delete a pod being deleted at once",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, del(a, "other-1", &zero), del(a, "pod-1", &zero))
			},
			merged: []string{"DELETE " + a + "/pod-1", "REMOVE " + a + "/pod-1"},
		},
		{
			name: "relabel a pod listed at the start",
			do: func(ctx context.Context) (string, error) {
				return all(ctx, labels(b, "keep", "8"))
			},
			merged: []string{"UPDATE " + b + "/keep"},
		},
	}
}
