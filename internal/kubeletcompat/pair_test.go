package kubeletcompat

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
)

// wait bounds each wait for the two pod configs to take a step. It is
// generous because the machine may be busy; nothing asserts speed.
const wait = 90 * time.Second

// format is one wire format both sides are fed in.
type format struct {
	name     string
	kubelet  string // the kubelet's --kube-api-content-type
	podwatch string // podwatch's rest.Config.ContentType
	media    string // the media type both must get answers in
}

// barrier is a pod on the watched node whose stepLabel the test sets after
// each step's writes. The apiserver sends a node's events in order, so once
// a pod config publishes the barrier at step n, it has merged everything
// the steps up to n wrote, and nothing after: the updates since the
// barrier's previous step are that step's, on both sides, whatever the
// timing. The barrier's own update closes each step's updates, the same on
// both sides.
type barrier struct{ key string } // namespace/name

const stepLabel = "podwatch.test/step"

// step returns the step a pod's labels carry, when the pod is the barrier.
func (b barrier) step(key string, labels map[string]string) (int, bool) {
	if key != b.key {
		return 0, false
	}
	n, err := strconv.Atoi(labels[stepLabel])
	return n, err == nil
}

// pair is the kubelet's pod config and podwatch's, watching one node of one
// cluster in one format, and the script that drives them.
type pair struct {
	t      *testing.T
	c      *cluster.Cluster
	format format
	node   string
	ns     string // where the barrier lives

	bar               barrier
	kubelet, podwatch *stream
	ks                *kubeletSide
	ps                *podwatchSide
	next              int // the barrier step the next mark sets
}

func newPair(t *testing.T, c *cluster.Cluster, f format, node, ns string) *pair {
	return &pair{
		t: t, c: c, format: f, node: node, ns: ns,
		bar:      barrier{key: ns + "/barrier"},
		kubelet:  newStream("kubelet"),
		podwatch: newStream("podwatch"),
	}
}

// start starts both sides. The kubelet's source is cut off when the test
// ends; podwatch's stops then, and the test waits for it.
func (p *pair) start() {
	done, cancel := context.WithCancel(context.Background())
	p.t.Cleanup(cancel)
	p.ks = startKubelet(p.t, done, p.c, p.node, p.format.kubelet, p.kubelet, p.bar)
	p.ps = startPodwatch(p.t, done, p.c, p.node, p.format.podwatch, p.podwatch, p.bar)
}

// mark sets the barrier to the next step, creating it the first time.
func (p *pair) mark(ctx context.Context) error {
	labels := map[string]string{stepLabel: strconv.Itoa(p.next)}
	var err error
	if p.next == 0 {
		_, err = p.c.CreatePod(ctx, p.ns, "barrier", p.node, labels)
	} else {
		_, err = p.c.UpdatePodLabels(ctx, p.ns, "barrier", labels)
	}
	if err != nil {
		return fmt.Errorf("barrier step %d: %w", p.next, err)
	}
	p.next++
	return nil
}

// step runs do, marks the barrier, runs each of then, and compares what
// each side published for the step.
func (p *pair) step(name string, do func(context.Context) error, then ...func(context.Context) error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := do(ctx); err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	if err := p.mark(ctx); err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	for _, f := range then {
		if err := f(ctx); err != nil {
			p.t.Fatalf("%s: %v", name, err)
		}
	}
	p.compare(ctx, name)
}

// compare waits for both sides to publish the last barrier step and
// compares their updates since the step before.
func (p *pair) compare(ctx context.Context, name string) {
	p.t.Helper()
	step := p.next - 1
	k, kerr := p.kubelet.through(ctx, step)
	w, werr := p.podwatch.through(ctx, step)
	if kerr != nil || werr != nil {
		p.t.Logf("the kubelet's log, last lines:\n%s", kubeletLog)
		p.t.Fatalf("%s: a pod config did not take the step (kubelet: %v; podwatch: %v)\nkubelet so far:\n%s\npodwatch so far:\n%s",
			name, kerr, werr, indent(lines(k)), indent(lines(w)))
	}
	p.t.Logf("%s: kubelet published\n%s", name, indent(lines(k)))
	if d := cmp.Diff(lines(k), lines(w)); d != "" {
		p.t.Logf("the kubelet's log, last lines:\n%s", kubeletLog)
		p.t.Errorf("%s: update streams differ (-kubelet +podwatch):\n%s", name, d)
	} else if d := cmp.Diff(viewLines(k), viewLines(w)); d != "" {
		p.t.Errorf("%s: same updates, but the pods in them differ (-kubelet +podwatch):\n%s", name, d)
	}
}

// checkWire checks that each side was answered in the pair's format only,
// and that both read the first state the same way (list or watch list), so
// that the comparison is between the paths a kubelet really takes.
func (p *pair) checkWire() {
	p.t.Helper()
	first := map[string]string{}
	for side, exs := range map[string][]exchange{"kubelet": p.ks.wire.all(), "podwatch": p.ps.wire.all()} {
		answered := 0
		for _, ex := range exs {
			if ex.MediaType == "" {
				continue
			}
			answered++
			if ex.MediaType != p.format.media {
				p.t.Errorf("%s: answered in %q, want %q (query %v)", side, ex.MediaType, p.format.media, ex.Query)
			}
		}
		if answered == 0 {
			p.t.Errorf("%s: no request answered", side)
			continue
		}
		first[side] = "list"
		if exs[0].Query.Get("sendInitialEvents") == "true" {
			first[side] = "watch list"
		}
	}
	if first["kubelet"] != first["podwatch"] {
		p.t.Errorf("first state read by a %s on the kubelet's side, by a %s on podwatch's", first["kubelet"], first["podwatch"])
	}
	p.t.Logf("first state read by a %s on both sides, answered in %s", first["kubelet"], p.format.media)
}

// checkCovered fails unless the kubelet published every operation in ops,
// so that a script that stopped exercising one cannot pass for a
// comparison of it.
func (p *pair) checkCovered(ops ...string) {
	p.t.Helper()
	seen := map[string]bool{}
	for _, u := range p.kubelet.all() {
		seen[u.Op] = true
	}
	for _, op := range ops {
		if !seen[op] {
			p.t.Errorf("the script made the kubelet publish no %s update", op)
		}
	}
}

// waitSeen waits until both pod configs have merged their source's first
// state.
func (p *pair) waitSeen(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !p.ks.seenAPI() || !p.ps.seenAPI() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("first state merged: kubelet %t, podwatch %t: %w", p.ks.seenAPI(), p.ps.seenAPI(), ctx.Err())
		}
	}
	return nil
}

func indent(ls []string) string {
	if len(ls) == 0 {
		return "\t(none)"
	}
	return "\t" + strings.Join(ls, "\n\t")
}
