package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/rest/api"
)

// TestConvergeReal churns pods on a real apiserver (creates on this node and
// another, spec and status updates, graceful and immediate deletes), with etcd
// compacted amid the writes, and between them etcd compactions followed by
// apiserver restarts (410s), an apiserver killed and an etcd restarted (a
// write while the server is down would leave the truth unknown). Two reflectors watch node-a, one
// listing and one streaming watch lists. Every write's answer goes into a
// model.History, the truth: every push of both must be the server's state at
// the push's resourceVersion, no push older than the one before, and the last
// push the final state, equal to what the admin lists.
func TestConvergeReal(t *testing.T) {
	c, ctx := startCluster(t, 6*time.Minute)
	const ns = "converge"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	_, startRV, err := serverState(ctx, c)
	if err != nil {
		t.Fatalf("list as admin: %v", err)
	}
	start, err := strconv.ParseInt(startRV, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", startRV, err)
	}
	hist := model.NewHistory(start)
	type watcher struct {
		name    string
		checker *model.Checker
		steps   *stepLog
	}
	var watchers []watcher
	for _, watchList := range []bool{false, true} {
		checker := model.NewChecker(hist, node)
		checker.IgnoreUID = true // the admin's answers carry none
		pushes := &pushLog{}
		lw := nodeListWatch(newClient(t, c, c.NodeToken, nil))
		store := cache.NewUndeltaStore(func(items []*api.Pod, rv string) {
			checker.Push(items, rv)
			pushes.push(items, rv)
		}, cache.MetaNamespaceKey[*api.Pod])
		steps := &stepLog{}
		r := cache.NewReflector(lw, store, cache.ReflectorOptions{Backoff: quick, WatchList: watchList, Observe: steps.observe})
		goUntilCleanup(t, ctx, "reflector", func(ctx context.Context) { r.Run(ctx) })
		watchers = append(watchers, watcher{fmt.Sprintf("watch list %t", watchList), checker, steps})
	}

	ch := &realChurn{t: t, ctx: ctx, c: c, hist: hist, ns: ns, r: rand.New(rand.NewPCG(uint64(start), 10))}
	disruptions := []struct {
		name string
		do   func() error
	}{
		{"compact etcd and restart the apiserver", func() error {
			if _, err := c.CompactEtcd(ctx); err != nil {
				return err
			}
			return c.RestartAPIServer(ctx)
		}},
		{"kill the apiserver", func() error {
			if err := c.KillAPIServer(); err != nil {
				return err
			}
			return c.StartAPIServer(ctx)
		}},
		{"restart etcd", func() error {
			if err := c.StopEtcd(); err != nil {
				return err
			}
			return c.StartEtcd(ctx)
		}},
		{"compact etcd and restart the apiserver again", func() error {
			if _, err := c.CompactEtcd(ctx); err != nil {
				return err
			}
			return c.RestartAPIServer(ctx)
		}},
	}
	const perRound = 10
	for _, d := range disruptions {
		for i := range perRound {
			ch.change()
			if i == perRound/2 {
				// Compacting alone leaves the watch cache serving: the churn
				// and the watches go on across it.
				if _, err := c.CompactEtcd(ctx); err != nil {
					t.Fatalf("CompactEtcd: %v", err)
				}
			}
		}
		if err := d.do(); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		ch.waitWritable()
		t.Logf("%s after %d changes, at rv %d", d.name, hist.Changes(), hist.Last())
	}
	for range perRound {
		ch.change()
	}

	want, _, err := serverState(ctx, c)
	if err != nil {
		t.Fatalf("final list as admin: %v", err)
	}
	for _, w := range watchers {
		if !poll(ctx, func() bool { _, ok := w.checker.SettledAt(); return ok }) {
			t.Errorf("%s: did not settle on the final state within %s: %v\nsteps:%s", w.name, wait, w.checker.CheckFinal(), w.steps.summary())
			continue
		}
		if err := w.checker.Check(); err != nil {
			t.Errorf("%s: %v\nsteps:%s\nhistory:%s", w.name, err, w.steps.summary(), describeHistory(hist))
		}
		pushes := w.checker.Pushes()
		var got []string
		for _, p := range pushes[len(pushes)-1].Pods {
			got = append(got, podState{Key: p.Key(), RV: strconv.FormatInt(p.RV, 10), Node: p.Node, Image: p.Image, Phase: p.Phase, Deleting: p.Deleting}.String())
		}
		if !slices.Equal(want, got) {
			t.Errorf("%s: last push\n  %s\nis not what the admin lists:\n  %s", w.name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		t.Logf("%s: %d pushes over %d changes, every one a state the server had; %s", w.name, len(pushes), hist.Changes(), failures(w.steps))
	}
}

// realChurn makes random changes to pods through the admin client, one at a
// time, and records each in the history at the resourceVersion the answer
// carries. A failed write would leave the truth unknown, so it fails the test;
// writes happen only while the server is up.
type realChurn struct {
	t    *testing.T
	ctx  context.Context
	c    *cluster.Cluster
	hist *model.History
	ns   string
	r    *rand.Rand
	next int
	// probes counts namespaces made to learn the server writes again.
	probes int
}

func (ch *realChurn) record(op model.Op, p model.Pod, rv string, err error) {
	ch.t.Helper()
	if err != nil {
		ch.t.Fatalf("%s %s: %v", op, p.Key(), err)
	}
	n, perr := strconv.ParseInt(rv, 10, 64)
	if perr != nil {
		ch.t.Fatalf("%s %s: resourceVersion %q: %v", op, p.Key(), rv, perr)
	}
	p.RV = n
	if err := ch.hist.Add(model.Change{Op: op, Pod: p}); err != nil {
		ch.t.Fatalf("record %s of %s: %v", op, p.Key(), err)
	}
}

func (ch *realChurn) change() {
	ch.t.Helper()
	pods, _ := ch.hist.Current("")
	if len(pods) == 0 || ch.r.IntN(4) == 0 {
		where := node
		if ch.r.IntN(3) == 0 {
			where = otherNode
		}
		p := model.Pod{Namespace: ch.ns, Name: fmt.Sprintf("p%d", ch.next), Node: where, Image: cluster.PodImage, Phase: "Pending"}
		ch.next++
		rv, err := ch.c.CreatePod(ch.ctx, ch.ns, p.Name, p.Node, nil)
		ch.record(model.Create, p, rv, err)
		return
	}
	p := pods[ch.r.IntN(len(pods))]
	ops := []model.Op{model.Spec, model.Status, model.Graceful, model.Delete}
	switch {
	case p.Deleting:
		ops = []model.Op{model.Status, model.Delete}
	case p.Phase == "Succeeded" || p.Phase == "Failed":
		// The apiserver removes a pod in a terminal phase at once, however
		// gracefully it is deleted: no deletionTimestamp is left to watch.
		ops = []model.Op{model.Spec, model.Status, model.Delete}
	}
	var rv string
	var err error
	switch op := ops[ch.r.IntN(len(ops))]; op {
	case model.Spec:
		p.Image = fmt.Sprintf("registry.invalid/app:%d", ch.hist.Last())
		rv, err = ch.c.SetPodImage(ch.ctx, ch.ns, p.Name, p.Image)
		ch.record(op, p, rv, err)
	case model.Status:
		phases := slices.DeleteFunc([]string{"Pending", "Running", "Succeeded", "Failed"}, func(s string) bool { return s == p.Phase })
		p.Phase = phases[ch.r.IntN(len(phases))]
		rv, err = ch.c.SetPodPhase(ch.ctx, ch.ns, p.Name, p.Phase)
		ch.record(op, p, rv, err)
	case model.Graceful:
		// A bound pod with no kubelet to confirm only gets its
		// deletionTimestamp.
		p.Deleting = true
		rv, err = ch.c.DeletePod(ch.ctx, ch.ns, p.Name, nil)
		ch.record(op, p, rv, err)
	case model.Delete:
		rv, err = ch.c.DeletePod(ch.ctx, ch.ns, p.Name, &zero)
		if err == nil {
			// A bound pod's immediate delete is two writes: its
			// deletionTimestamp (and a zero grace period), then its removal.
			// The answer carries the second; the first is in the state just
			// before it.
			ch.recordMarked(p, rv)
		}
		ch.record(op, p, rv, err)
	}
}

// recordMarked records the write that marked pod p for deletion just before
// its removal at rv, reading the pod's version in the state at rv-1.
func (ch *realChurn) recordMarked(p model.Pod, rv string) {
	ch.t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		ch.t.Fatalf("delete %s: resourceVersion %q: %v", p.Key(), rv, err)
	}
	q := url.Values{
		"fieldSelector":        {"metadata.name=" + p.Name},
		"resourceVersion":      {strconv.FormatInt(n-1, 10)},
		"resourceVersionMatch": {"Exact"},
	}
	var list struct {
		Items []serverPod `json:"items"`
	}
	if err := ch.c.Do(ch.ctx, http.MethodGet, "/api/v1/namespaces/"+ch.ns+"/pods?"+q.Encode(), nil, &list); err != nil {
		ch.t.Fatalf("list %s just before its removal at %s: %v", p.Key(), rv, err)
	}
	if len(list.Items) != 1 {
		ch.t.Fatalf("list %s just before its removal at %s: %d pods", p.Key(), rv, len(list.Items))
	}
	if marked := list.Items[0].Metadata.ResourceVersion; marked != strconv.FormatInt(p.RV, 10) {
		p.Deleting = true
		ch.record(model.Graceful, p, marked, nil)
	}
}

// waitWritable waits until the server writes again, with writes that change
// no pod: a failed pod write would leave the truth unknown.
func (ch *realChurn) waitWritable() {
	ch.t.Helper()
	var err error
	if !poll(ch.ctx, func() bool {
		ch.probes++
		err = ch.c.EnsureNamespace(ch.ctx, fmt.Sprintf("probe-%d", ch.probes))
		return err == nil
	}) {
		ch.t.Fatalf("the server does not write again within %s: %v", wait, err)
	}
}

// describeHistory lists the changes, for failure messages.
func describeHistory(h *model.History) string {
	var b strings.Builder
	for _, c := range h.After(h.Start()) {
		fmt.Fprintf(&b, "\n  %s %s", c.Op, c.Pod)
	}
	return b.String()
}
