package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

// wait bounds every single wait for the server or for podwatch to catch up.
// It is generous because the machine may be busy; nothing asserts speed.
const wait = 30 * time.Second

// The node the tests watch, and the one whose pods must never show up.
const (
	node      = "node-a"
	otherNode = "node-b"
)

// startCluster starts a real cluster for t and returns it with a context
// that bounds the whole test.
func startCluster(t *testing.T, limit time.Duration) (*cluster.Cluster, context.Context) {
	t.Helper()
	c := cluster.StartForTest(t, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	return c, ctx
}

// newClient returns a podwatch client for c that sends token and records
// each round trip in trips (unless nil), untraced.
func newClient(t *testing.T, c *cluster.Cluster, token string, trips *tripLog) *rest.Client {
	t.Helper()
	return clientMode{}.newClient(t, c, token, trips)
}

// clusterConfig is the configuration of a client of c that sends token.
func clusterConfig(c *cluster.Cluster, token string) rest.Config {
	return rest.Config{Host: c.URL, BearerToken: token, TLS: rest.TLSConfig{CAData: c.CAData}}
}

// nodeListWatch is the list-watch a kubelet on node builds for its pods.
func nodeListWatch(client *rest.Client) *cache.ListWatch[*api.Pod] {
	// api.Codec reads protobuf pods straight from the wire, as the api
	// source does.
	return cache.NewListWatchFromClient(client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", node), api.Codec)
}

// podState is what the tests compare of one pod: enough to tell each change
// the script makes, printed as one line so that cmp.Diff reads well.
type podState struct {
	Key      string // namespace/name
	RV       string
	Node     string
	Image    string
	Phase    string
	Labels   map[string]string
	Deleting bool
}

func (p podState) String() string {
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(p.Labels)) {
		labels = append(labels, k+"="+p.Labels[k])
	}
	return fmt.Sprintf("%s rv=%s node=%s image=%s phase=%s labels=%s deleting=%t",
		p.Key, p.RV, p.Node, p.Image, p.Phase, strings.Join(labels, ","), p.Deleting)
}

func stateOf(p *api.Pod) podState {
	s := podState{
		Key:      p.Metadata.Namespace + "/" + p.Metadata.Name,
		RV:       p.Metadata.ResourceVersion,
		Node:     p.Spec.NodeName,
		Phase:    p.Status.Phase,
		Labels:   p.Metadata.Labels,
		Deleting: p.Metadata.DeletionTimestamp != nil,
	}
	if len(p.Spec.Containers) > 0 {
		s.Image = p.Spec.Containers[0].Image
	}
	return s
}

func lines(pods []podState) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.String())
	}
	slices.Sort(out)
	return out
}

// serverPod is the part of a pod the server's answer is decoded into, with
// encoding/json: the other side of every comparison shares no code with
// podwatch's decoder.
type serverPod struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		ResourceVersion   string            `json:"resourceVersion"`
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName   string `json:"nodeName"`
		Containers []struct {
			Image string `json:"image"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func (p *serverPod) state() podState {
	s := podState{
		Key:      p.Metadata.Namespace + "/" + p.Metadata.Name,
		RV:       p.Metadata.ResourceVersion,
		Node:     p.Spec.NodeName,
		Phase:    p.Status.Phase,
		Labels:   p.Metadata.Labels,
		Deleting: p.Metadata.DeletionTimestamp != nil,
	}
	if len(p.Spec.Containers) > 0 {
		s.Image = p.Spec.Containers[0].Image
	}
	return s
}

// serverState lists, as admin, the pods on node and returns their states
// sorted as lines, and the list's resourceVersion.
func serverState(ctx context.Context, c *cluster.Cluster) ([]string, string, error) {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []serverPod `json:"items"`
	}
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	if err := c.Do(ctx, http.MethodGet, "/api/v1/pods?"+q.Encode(), nil, &list); err != nil {
		return nil, "", err
	}
	var pods []podState
	for _, it := range list.Items {
		pods = append(pods, it.state())
	}
	return lines(pods), list.Metadata.ResourceVersion, nil
}

// snapshot is one push of an UndeltaStore (or one SET of the api source,
// whose RV is then the reflector's last synced version when it came).
type snapshot struct {
	RV   string
	Pods []podState
}

// pushLog records every snapshot podwatch handed on. Safe for concurrent use.
type pushLog struct {
	// synced, when set, gives the resourceVersion podwatch has synced to,
	// for snapshots that do not carry one (the api source's SETs).
	synced func() string

	mu    sync.Mutex
	snaps []snapshot
	opsIn []podconfig.Op // of the api source's updates
}

func (l *pushLog) addOp(op podconfig.Op) {
	l.mu.Lock()
	l.opsIn = append(l.opsIn, op)
	l.mu.Unlock()
}

func (l *pushLog) ops() []podconfig.Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.opsIn)
}

// push is a cache.PushFunc. It copies what it needs at once: the pods are
// shared with the store.
func (l *pushLog) push(items []*api.Pod, rv string) {
	s := snapshot{RV: rv, Pods: make([]podState, 0, len(items))}
	for _, p := range items {
		s.Pods = append(s.Pods, stateOf(p))
	}
	l.mu.Lock()
	l.snaps = append(l.snaps, s)
	l.mu.Unlock()
}

func (l *pushLog) all() []snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.snaps)
}

// reached reports whether a snapshot is at resourceVersion rv or later.
func (l *pushLog) reached(rv string) bool {
	return slices.ContainsFunc(l.all(), func(s snapshot) bool { return atLeast(s.RV, rv) })
}

func (l *pushLog) last() (snapshot, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.snaps) == 0 {
		return snapshot{}, false
	}
	return l.snaps[len(l.snaps)-1], true
}

// checkPushes fails t unless every snapshot holds only node's pods, none
// holds a pod newer than the snapshot's own resourceVersion, and no
// snapshot's resourceVersion is older than the one before it: the promises
// an UndeltaStore makes to its consumer.
func checkPushes(t *testing.T, snaps []snapshot) {
	t.Helper()
	prev := ""
	for i, s := range snaps {
		for _, p := range s.Pods {
			if p.Node != node {
				t.Errorf("push %d (rv %s) holds %s of node %q, want only %s's pods", i, s.RV, p.Key, p.Node, node)
			}
			if s.RV == "" {
				continue
			}
			if c := mustCompare(t, p.RV, s.RV); c > 0 {
				t.Errorf("push %d at rv %s holds %s at newer rv %s", i, s.RV, p.Key, p.RV)
			}
		}
		if s.RV == "" {
			continue
		}
		if prev != "" && mustCompare(t, s.RV, prev) < 0 {
			t.Errorf("push %d went back in time: rv %s after %s", i, s.RV, prev)
		}
		prev = s.RV
	}
}

func mustCompare(t *testing.T, a, b string) int {
	t.Helper()
	c, err := meta.CompareResourceVersions(a, b)
	if err != nil {
		t.Fatalf("compare resourceVersions %q and %q: %v", a, b, err)
	}
	return c
}

// atLeast reports whether rv is not older than min; an empty rv is older
// than anything.
func atLeast(rv, min string) bool {
	if rv == "" {
		return false
	}
	c, err := meta.CompareResourceVersions(rv, min)
	return err == nil && c >= 0
}

// waitConverged waits until the last snapshot in log is at least at
// resourceVersion written and holds exactly what the server lists for node,
// pod resourceVersions included. It fails t with the difference if that does
// not happen within wait. Pods on node are changed only by the test, so once
// the write is done the server's list stays put and the snapshot must reach
// it.
func waitConverged(t *testing.T, ctx context.Context, c *cluster.Cluster, log *pushLog, written string) []string {
	t.Helper()
	want, _, err := serverState(ctx, c)
	if err != nil {
		t.Fatalf("list pods on %s as admin: %v", node, err)
	}
	var got []string
	var gotRV string
	ok := poll(ctx, func() bool {
		s, ok := log.last()
		if !ok {
			return false
		}
		got, gotRV = lines(s.Pods), s.RV
		if gotRV == "" && log.synced != nil {
			gotRV = log.synced()
		}
		return atLeast(gotRV, written) && slices.Equal(got, want)
	})
	if !ok {
		t.Fatalf("pushed state did not converge within %s to the server's after the write at rv %s:\nlast push at rv %s:\n  %s\nserver lists:\n  %s",
			wait, written, gotRV, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return want
}

// poll calls cond every 20 ms until it returns true (then poll does too),
// wait passes, or ctx ends.
func poll(ctx context.Context, cond func() bool) bool {
	return pollFor(ctx, wait, 20*time.Millisecond, cond)
}

// pollFor calls cond every interval until it returns true (then pollFor
// does too), limit passes, or ctx ends. A cond that reads a whole trace
// wants a longer interval than poll's.
func pollFor(ctx context.Context, limit, every time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
}

// stepLog records the steps a reflector reports. Safe for concurrent use.
type stepLog struct {
	mu    sync.Mutex
	steps []cache.Step
	times []time.Time // when each step was reported, for the logs only
}

// observe is a ReflectorOptions.Observe hook.
func (l *stepLog) observe(s cache.Step) {
	l.mu.Lock()
	l.steps = append(l.steps, s)
	l.times = append(l.times, time.Now())
	l.mu.Unlock()
}

func (l *stepLog) timed() ([]cache.Step, []time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps), slices.Clone(l.times)
}

func (l *stepLog) all() []cache.Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps)
}

func (l *stepLog) count(kind cache.StepKind) int {
	n := 0
	for _, s := range l.all() {
		if s.Kind == kind {
			n++
		}
	}
	return n
}

// lastRV is the resourceVersion the reflector last reported synced.
func (l *stepLog) lastRV() string {
	steps := l.all()
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Kind == cache.StepResourceVersion {
			return steps[i].ResourceVersion
		}
	}
	return ""
}

// summary prints the steps compactly for failure messages and logs.
func (l *stepLog) summary() string {
	var b strings.Builder
	for _, s := range l.all() {
		if s.Kind == cache.StepResourceVersion {
			continue
		}
		fmt.Fprintf(&b, "\n  %s", s.Kind)
		if s.Event != "" {
			fmt.Fprintf(&b, " %s", s.Event)
		}
		if s.ResourceVersion != "" {
			fmt.Fprintf(&b, " rv=%s", s.ResourceVersion)
		}
		if s.Cause != 0 {
			fmt.Fprintf(&b, " (%s)", s.Cause)
		}
	}
	return b.String()
}

// runReflector runs a reflector of node's pods from lw into an UndeltaStore
// until the test ends, recording pushes and steps. The options' Observe is
// replaced.
func runReflector(t *testing.T, ctx context.Context, lw cache.ListerWatcher[*api.Pod], opts cache.ReflectorOptions) (*cache.Reflector[*api.Pod], *pushLog, *stepLog) {
	t.Helper()
	pushes, steps := &pushLog{}, &stepLog{}
	opts.Observe = steps.observe
	store := cache.NewUndeltaStore(pushes.push, cache.MetaNamespaceKey[*api.Pod])
	r := cache.NewReflector(lw, store, opts)
	// Without GiveUp, Run returns only once ctx ends, with nil.
	goUntilCleanup(t, ctx, "reflector", func(ctx context.Context) { r.Run(ctx) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("reflector steps:%s", steps.summary())
		}
	})
	return r, pushes, steps
}

// goUntilCleanup runs f on its own goroutine with a context that ends when
// the test does, and waits for f to return then.
func goUntilCleanup(t *testing.T, ctx context.Context, what string, f func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Errorf("%s did not return within %s of its context ending", what, wait)
		}
	})
}

// trip is one request podwatch sent and the answer's protocol and status.
type trip struct {
	Method string
	Path   string
	Query  url.Values
	Proto  string
	Status int
}

func (tr trip) isWatch() bool {
	return tr.Query.Get("watch") == "true" || strings.HasPrefix(tr.Path, "/api/v1/watch/")
}

// tripLog is a transport wrapper that records every round trip. It never
// looks at headers, so it cannot leak the token.
type tripLog struct {
	mu    sync.Mutex
	trips []trip
}

func (l *tripLog) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.trips = append(l.trips, trip{
			Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(),
			Proto: resp.Proto, Status: resp.StatusCode,
		})
		l.mu.Unlock()
		return resp, nil
	})
}

func (l *tripLog) all() []trip {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.trips)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// adminGet asks the cluster for path as its admin, accepting accept, and
// returns the answer with its body unread: the one raw GET the wire tests
// share.
func adminGet(t *testing.T, ctx context.Context, c *cluster.Cluster, path, accept string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.Client(c.AdminToken).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}
