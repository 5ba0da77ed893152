package kubeletcompat

import (
	"context"
	"net/http"
	"testing"

	"github.com/podwatch/podwatch/internal/cluster"
)

var formats = []format{
	// The kubelet's default: it asks for protobuf and accepts JSON after it;
	// the apiserver answers pods in protobuf.
	{name: "protobuf", kubelet: protobufType, podwatch: protobufType, media: protobufType},
	{name: "json", kubelet: jsonType, podwatch: jsonType, media: jsonType},
}

// TestPodConfigMatchesKubelet feeds the real kubelet's pod config and
// podwatch's from one real apiserver, for the same node, through a scripted
// pod lifecycle, and requires the same updates, step by step: operation,
// source and pod keys, then the same view of each pod (see view).
func TestPodConfigMatchesKubelet(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{})
	// One after the other: the relists restart the apiserver, which would
	// fail the writes of a run beside them.
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			t.Run("empty node", func(t *testing.T) { testEmptyNode(t, c, f) })
			t.Run("lifecycle", func(t *testing.T) { testLifecycle(t, c, f) })
			t.Run("relist", func(t *testing.T) { testRelist(t, c, f) })
		})
	}
}

// testEmptyNode starts both on a node without pods: each publishes an empty
// ADD once its source's first state is merged (the sign that the source is
// ready), then the barrier's ADD.
func testEmptyNode(t *testing.T, c *cluster.Cluster, f format) {
	ns := f.name + "-empty"
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, c, f, f.name+"-empty-node", ns)
	p.start()
	// The barrier must come after both first states, or a side that lists
	// late would take it in its first state.
	if err := p.waitSeen(ctx); err != nil {
		t.Fatal(err)
	}
	p.step("first state of an empty node", func(context.Context) error { return nil })
	p.checkWire()
}

// testLifecycle walks pods through what a kubelet sees of them: created,
// relabelled, changed in spec and status, annotated, deleted gracefully and
// forcibly, held by a finalizer, moved between nodes, re-created.
func testLifecycle(t *testing.T, c *cluster.Cluster, f format) {
	ns, ns2 := f.name, f.name+"-b"
	node, other := f.name+"-node", f.name+"-elsewhere"
	p := newPair(t, c, f, node, ns)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w := writer{c: c}

	// The first state: pods in two namespaces, one of the same name in each,
	// one being deleted already, one on another node; and the barrier.
	w.ensureNamespace(ctx, ns)
	w.ensureNamespace(ctx, ns2)
	w.create(ctx, ns, "web", node, map[string]string{"app": "web"})
	w.create(ctx, ns, "db", node, nil)
	w.create(ctx, ns2, "web", node, map[string]string{"app": "web"})
	w.create(ctx, ns, "far", other, nil)
	w.create(ctx, ns, "leaving", node, nil)
	w.delete(ctx, ns, "leaving", nil)
	if err := w.err; err != nil {
		t.Fatalf("first state: %v", err)
	}
	if err := p.mark(ctx); err != nil {
		t.Fatal(err)
	}
	p.start()
	p.compare(ctx, "first state")

	for _, s := range lifecycle(ns, ns2, node, other) {
		p.step(s.name, func(ctx context.Context) error {
			w := writer{c: c}
			s.do(ctx, &w)
			return w.err
		})
	}
	p.checkWire()
	p.checkCovered("ADD", "UPDATE", "DELETE", "REMOVE", "RECONCILE")
}

// testRelist changes many pods while neither side can read the server,
// then makes both read the whole state again, so that one state from the
// source brings every kind of change at once: how the pod config splits it
// into updates, and in which order, is compared.
//
// The kubelet's reflector reads the whole state again after any failed
// watch; podwatch's resumes its watch where it was, unless the server
// answers 410. So the etcd history is compacted and the apiserver restarted
// (its new watch cache starts after the compaction) before both are let
// back: both then read the whole state, the one way or the other.
func testRelist(t *testing.T, c *cluster.Cluster, f format) {
	ns, node := f.name+"-relist", f.name+"-relist-node"
	p := newPair(t, c, f, node, ns)
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	w := writer{c: c}
	w.ensureNamespace(ctx, ns)
	for _, name := range []string{"kept", "relabelled", "running", "deleting", "removed", "forced",
		"relabelled-running", "deleting-running", "recreated", "finalized"} {
		w.create(ctx, ns, name, node, nil)
	}
	if err := w.err; err != nil {
		t.Fatalf("first state: %v", err)
	}
	if err := p.mark(ctx); err != nil {
		t.Fatal(err)
	}
	p.start()
	p.compare(ctx, "first state")

	// The barrier moves while the sides are held, so it comes in the state
	// they read again: the updates of that state after the barrier's are
	// compared with the next step's.
	p.step("every kind of change in one state read again", func(ctx context.Context) error {
		p.ks.wire.hold()
		p.ps.wire.hold()
		w := writer{c: c}
		w.create(ctx, ns, "added", node, nil)
		w.create(ctx, ns, "added-too", node, nil)
		w.labels(ctx, ns, "relabelled", map[string]string{"app": "relabelled"})
		w.phase(ctx, ns, "running", "Running")
		w.delete(ctx, ns, "deleting", nil)
		w.delete(ctx, ns, "removed", grace(0))
		w.delete(ctx, ns, "forced", nil)
		w.delete(ctx, ns, "forced", grace(0))
		// Two changes to one pod come as one: a spec-side change wins over
		// a status change, a deletion over both.
		w.labels(ctx, ns, "relabelled-running", map[string]string{"app": "both"})
		w.phase(ctx, ns, "relabelled-running", "Running")
		w.phase(ctx, ns, "deleting-running", "Running")
		w.delete(ctx, ns, "deleting-running", nil)
		// A new pod under an old name: a new UID, so gone and new at once.
		w.delete(ctx, ns, "recreated", grace(0))
		w.create(ctx, ns, "recreated", node, nil)
		// Nothing the pod config compares.
		w.merge(ctx, ns, "finalized", map[string]any{"metadata": map[string]any{"finalizers": []string{"podwatch.test/hold"}}})
		return w.err
	}, func(ctx context.Context) error {
		if _, err := c.CompactEtcd(ctx); err != nil {
			return err
		}
		if err := c.RestartAPIServer(ctx); err != nil {
			return err
		}
		p.ks.wire.release()
		p.ps.wire.release()
		return nil
	})
	p.step("a pod created after", func(ctx context.Context) error {
		w := writer{c: c}
		w.create(ctx, ns, "after", node, nil)
		return w.err
	})
	p.checkWire()
	for side, exs := range map[string][]exchange{"kubelet": p.ks.wire.all(), "podwatch": p.ps.wire.all()} {
		if n := countFunc(exs, exchange.initial); n < 2 {
			t.Errorf("%s read the whole state %d times, want it read again after the restart", side, n)
		}
	}
}

func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

type scriptStep struct {
	name string
	do   func(context.Context, *writer)
}

// lifecycle is the script, run after the first state. Each step's writes
// are what a kubelet could see between two of its updates; the comment
// says what the step is for, not what either side must publish: the
// kubelet's pod config decides that.
func lifecycle(ns, ns2, node, other string) []scriptStep {
	return []scriptStep{
		{"a pod created on the node and one elsewhere", func(ctx context.Context, w *writer) {
			w.create(ctx, ns, "new", node, nil)
			w.create(ctx, ns, "far2", other, nil)
		}},
		{"relabelled", func(ctx context.Context, w *writer) {
			w.labels(ctx, ns, "web", map[string]string{"app": "web", "tier": "front"})
		}},
		{"the same name in another namespace relabelled", func(ctx context.Context, w *writer) {
			w.labels(ctx, ns2, "web", map[string]string{"app": "web2"})
		}},
		{"status phase Running", func(ctx context.Context, w *writer) { w.phase(ctx, ns, "db", "Running") }},
		{"spec changed (image)", func(ctx context.Context, w *writer) {
			w.image(ctx, ns, "web", "registry.invalid/pause:2")
		}},
		{"annotated", func(ctx context.Context, w *writer) {
			w.merge(ctx, ns, "db", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"note": "one"}}})
		}},
		// The pod config owns these two annotations: a change to them alone is
		// no change to the pod.
		{"the pod config's own annotations written on the server", func(ctx context.Context, w *writer) {
			w.merge(ctx, ns, "new", map[string]any{"metadata": map[string]any{"annotations": map[string]any{
				"kubernetes.io/config.seen": "2001-01-01T00:00:00Z", "kubernetes.io/config.source": "file"}}})
		}},
		{"a mirror pod created", func(ctx context.Context, w *writer) {
			w.createAnnotated(ctx, ns, "mirror", node, map[string]string{"kubernetes.io/config.mirror": "hash-1"})
		}},
		{"a mirror pod relabelled", func(ctx context.Context, w *writer) {
			w.labels(ctx, ns, "mirror", map[string]string{"app": "static"})
		}},
		// Finalizers (and owner references) are nothing the pod config
		// compares: no update.
		{"a finalizer added", func(ctx context.Context, w *writer) {
			w.merge(ctx, ns, "db", map[string]any{"metadata": map[string]any{"finalizers": []string{"podwatch.test/hold"}}})
		}},
		{"deleted gracefully", func(ctx context.Context, w *writer) { w.delete(ctx, ns, "web", nil) }},
		{"status of a pod being deleted", func(ctx context.Context, w *writer) { w.phase(ctx, ns, "web", "Running") }},
		{"deleted again with a shorter grace period", func(ctx context.Context, w *writer) { w.delete(ctx, ns, "web", grace(5)) }},
		{"a pod being deleted forced out", func(ctx context.Context, w *writer) { w.delete(ctx, ns, "web", grace(0)) }},
		{"a live pod forced out", func(ctx context.Context, w *writer) { w.delete(ctx, ns, "new", grace(0)) }},
		// A pod held by a finalizer only gets its deletion fields: DELETE,
		// and REMOVE only once the finalizer goes.
		{"a pod with a finalizer forced out", func(ctx context.Context, w *writer) { w.delete(ctx, ns, "db", grace(0)) }},
		{"its finalizer removed", func(ctx context.Context, w *writer) {
			w.merge(ctx, ns, "db", map[string]any{"metadata": map[string]any{"finalizers": nil}})
		}},
		{"a pod moved onto the node", func(ctx context.Context, w *writer) {
			w.delete(ctx, ns, "far", grace(0))
			w.create(ctx, ns, "far", node, nil)
		}},
		{"a pod moved off the node", func(ctx context.Context, w *writer) {
			w.delete(ctx, ns2, "web", grace(0))
			w.create(ctx, ns2, "web", other, nil)
		}},
		{"a pod re-created under its name", func(ctx context.Context, w *writer) {
			w.delete(ctx, ns, "far", grace(0))
			w.create(ctx, ns, "far", node, map[string]string{"generation": "2"})
		}},
		// The apiserver deletes a finished pod at once, yet in two events
		// (deletion fields, then gone), so the pod config says DELETE, then
		// REMOVE, as for any forced delete.
		{"a succeeded pod deleted", func(ctx context.Context, w *writer) {
			w.phase(ctx, ns, "far", "Succeeded")
			w.delete(ctx, ns, "far", nil)
		}},
		{"the pod being deleted since before the start forced out", func(ctx context.Context, w *writer) {
			w.delete(ctx, ns, "leaving", grace(0))
		}},
		{"several pods at once", func(ctx context.Context, w *writer) {
			for _, name := range []string{"a", "b", "c"} {
				w.create(ctx, ns, name, node, nil)
			}
			w.labels(ctx, ns, "a", map[string]string{"app": "a"})
			w.phase(ctx, ns, "b", "Running")
			w.delete(ctx, ns, "c", nil)
			w.delete(ctx, ns, "mirror", grace(0))
		}},
	}
}

func grace(s int64) *int64 { return &s }

// writer makes the script's writes as admin, keeping the first error so
// that a step reads as a list of writes.
type writer struct {
	c   *cluster.Cluster
	err error
}

func (w *writer) do(what string, f func() error) {
	if w.err != nil {
		return
	}
	if err := f(); err != nil {
		w.err = &writeError{what: what, err: err}
	}
}

type writeError struct {
	what string
	err  error
}

func (e *writeError) Error() string { return e.what + ": " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

func (w *writer) ensureNamespace(ctx context.Context, ns string) {
	w.do("namespace "+ns, func() error { return w.c.EnsureNamespace(ctx, ns) })
}

func (w *writer) create(ctx context.Context, ns, name, node string, labels map[string]string) {
	w.do("create "+ns+"/"+name, func() error { _, err := w.c.CreatePod(ctx, ns, name, node, labels); return err })
}

// createAnnotated creates a pod like cluster.CreatePod does, with annotations.
func (w *writer) createAnnotated(ctx context.Context, ns, name, node string, annotations map[string]string) {
	pod := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "annotations": annotations},
		"spec": map[string]any{
			"nodeName":   node,
			"containers": []any{map[string]any{"name": "main", "image": cluster.PodImage}},
		},
	}
	w.do("create "+ns+"/"+name, func() error {
		return w.c.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", pod, nil)
	})
}

func (w *writer) labels(ctx context.Context, ns, name string, labels map[string]string) {
	w.do("relabel "+ns+"/"+name, func() error { _, err := w.c.UpdatePodLabels(ctx, ns, name, labels); return err })
}

func (w *writer) image(ctx context.Context, ns, name, image string) {
	w.do("image of "+ns+"/"+name, func() error { _, err := w.c.SetPodImage(ctx, ns, name, image); return err })
}

func (w *writer) phase(ctx context.Context, ns, name, phase string) {
	w.do("phase of "+ns+"/"+name, func() error { _, err := w.c.SetPodPhase(ctx, ns, name, phase); return err })
}

func (w *writer) merge(ctx context.Context, ns, name string, patch any) {
	w.do("patch "+ns+"/"+name, func() error {
		_, err := w.c.PatchPod(ctx, ns, name, false, cluster.MergePatch, patch)
		return err
	})
}

func (w *writer) delete(ctx context.Context, ns, name string, gracePeriod *int64) {
	w.do("delete "+ns+"/"+name, func() error { _, err := w.c.DeletePod(ctx, ns, name, gracePeriod); return err })
}
