package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// stallWatchTimeout is the timeoutSeconds of the test's watches: long enough
// that a watch just answered is still open when the apiserver is frozen,
// short enough that the freeze outlasts it (plus the verdict's slack) soon.
const stallWatchTimeout = 10 * time.Second

// TestStallAgainstAPIServer freezes the real apiserver (SIGSTOP) under an
// open watch of a traced reflector whose stall threshold is a second: the
// trace must tell the watch's silence, quiet at first, then dead once the
// watch outlives its timeoutSeconds with no end. Thawed, the apiserver ends
// the watch, the reflector watches again, and a pod created then arrives.
func TestStallAgainstAPIServer(t *testing.T) {
	c, ctx := startCluster(t, 5*time.Minute)
	const ns = "stall"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	rv, err := c.CreatePod(ctx, ns, "before", node, nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	run := startStallRun(t, ctx, rest.Config{Host: c.URL, BearerToken: c.NodeToken, TLS: rest.TLSConfig{CAData: c.CAData}})
	waitConverged(t, ctx, c, run.pushes, rv)

	// Freeze as soon as a new watch is answered: it then has its whole
	// timeoutSeconds to go (one open for a while could end just before the
	// freeze, and the next be sent to a server that never answers it).
	first := run.openWatch(t)
	var req int
	if !poll(ctx, func() bool { req = run.openWatch(t); return req > first }) {
		t.Fatalf("no new watch answered within %s:\n%s", wait, run.out.String())
	}
	c.FreezeAPIServerForTest(t)
	if !poll(ctx, func() bool { return run.told(t, req, trace.VerdictDead) }) {
		c.ThawAPIServer()
		t.Fatalf("no dead stall of watch #%d within %s of freezing the apiserver:\n%s", req, wait, run.out.String())
	}
	if err := c.ThawAPIServer(); err != nil {
		t.Fatalf("thaw: %v", err)
	}

	after, err := c.CreatePod(ctx, ns, "after", node, nil)
	if err != nil {
		t.Fatalf("CreatePod after the thaw: %v", err)
	}
	waitConverged(t, ctx, c, run.pushes, after)
	st := run.stop(t)

	var verdicts []string
	stalls := 0
	for _, s := range run.steps(t) {
		if s.Stall == nil {
			continue
		}
		stalls++
		if s.Req == req {
			verdicts = append(verdicts, s.Stall.Verdict)
			if !strings.Contains(s.Stall.Explain, "timeoutSeconds") && s.Stall.Verdict == trace.VerdictDead {
				t.Errorf("dead stall explains %q: want the timeoutSeconds it outlived", s.Stall.Explain)
			}
		}
	}
	// Nothing changed on the node while the watch was open, so no bookmark
	// was due: quiet first, then dead past timeoutSeconds.
	if got := strings.Join(verdicts, " "); got != "quiet dead" {
		t.Errorf("stalls of watch #%d: %q, want \"quiet dead\":\n%s", req, got, run.out.String())
	}
	if st.Stalls != stalls {
		t.Errorf("summary counts %d stalls, the trace tells %d", st.Stalls, stalls)
	}
	if n := run.watchesAfter(t, req); n == 0 {
		t.Errorf("no watch after #%d: the reflector did not watch again after the thaw:\n%s", req, run.out.String())
	}
}

// stallRun is a reflector of node's pods, traced in JSON lines with a stall
// threshold of a second.
type stallRun struct {
	tr     *trace.Tracer
	out    *lockedBuffer
	pushes *pushLog
	cancel context.CancelFunc
	done   chan struct{}
}

func startStallRun(t *testing.T, ctx context.Context, cfg rest.Config) *stallRun {
	t.Helper()
	r := &stallRun{out: &lockedBuffer{}, pushes: &pushLog{}, done: make(chan struct{})}
	r.tr = trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(r.out)}, StallAfter: time.Second})
	in := trace.NewInstrument[*api.Pod](r.tr)
	in.Configure(&cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	store := in.WrapStore(cache.NewUndeltaStore(func(items []*api.Pod, rv string) {
		in.Pushed(items, rv)
		r.pushes.push(items, rv)
	}, cache.MetaNamespaceKey[*api.Pod]))
	refl := cache.NewReflector(nodeListWatch(client), store, cache.ReflectorOptions{
		Observe:         in.Observe,
		MinWatchTimeout: stallWatchTimeout,
		Rand:            func() float64 { return 0 }, // every watch asks for exactly that
	})
	ctx, r.cancel = context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		refl.Run(ctx)
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the run and closes its trace; safe twice. It returns the
// trace's summary.
func (r *stallRun) stop(t *testing.T) trace.Stop {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(wait):
		t.Fatalf("the reflector did not stop within %s", wait)
	}
	if err := r.tr.Close(); err != nil {
		t.Fatalf("close the trace: %v", err)
	}
	for _, s := range r.steps(t) {
		if s.Stop != nil {
			return *s.Stop
		}
	}
	t.Fatalf("the trace has no summary:\n%s", r.out.String())
	return trace.Stop{}
}

type stallTraceStep struct {
	Kind     trace.Kind
	Req      int
	Request  *trace.Request
	Response *trace.Response
	BodyEnd  *trace.BodyEnd `json:"body-end"`
	Stall    *trace.Stall
	Stop     *trace.Stop
}

func (r *stallRun) steps(t *testing.T) []stallTraceStep {
	t.Helper()
	var out []stallTraceStep
	for _, line := range strings.Split(strings.TrimSpace(r.out.String()), "\n") {
		if line == "" {
			continue
		}
		var s stallTraceStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// openWatch is the request number of the last request, if it is a watch
// answered 200 whose body has not ended; 0 otherwise.
func (r *stallRun) openWatch(t *testing.T) int {
	last, answered := 0, false
	for _, s := range r.steps(t) {
		switch {
		case s.Request != nil:
			last, answered = 0, false
			if s.Request.Type == "watch" {
				last = s.Req
			}
		case s.Response != nil && s.Req == last:
			answered = s.Response.Status == 200
		case s.BodyEnd != nil && s.Req == last:
			last = 0
		}
	}
	if !answered {
		return 0
	}
	return last
}

// told reports whether the trace has told a stall of request req with the
// verdict.
func (r *stallRun) told(t *testing.T, req int, verdict string) bool {
	for _, s := range r.steps(t) {
		if s.Stall != nil && s.Req == req && s.Stall.Verdict == verdict {
			return true
		}
	}
	return false
}

// watchesAfter counts the watch requests after request req.
func (r *stallRun) watchesAfter(t *testing.T, req int) int {
	n := 0
	for _, s := range r.steps(t) {
		if s.Request != nil && s.Request.Type == "watch" && s.Req > req {
			n++
		}
	}
	return n
}
