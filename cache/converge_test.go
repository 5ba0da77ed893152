package cache

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// The CI run takes convergeSeeds seeds per kind from convergeFrom; make converge
// asks for thousands.
var (
	convergeSeeds = flag.Int("converge.seeds", 100, "TestConverge: seeds per fault kind")
	convergeFrom  = flag.Int("converge.from", 1, "TestConverge: first seed")
	convergeKinds = flag.String("converge.kinds", "", "TestConverge: comma-separated kinds to run (default: all)")
	convergeTrace = flag.Bool("converge.trace", false, "TestConverge: log every seed's requests and steps")
)

// convergeKinds are the dimensions of TestConverge: no fault, each of package
// fault's, the model's dead and silent connections, and server restarts.
func convergeKindList() []string {
	kinds := []string{"none"}
	for _, k := range fault.Kinds {
		kinds = append(kinds, string(k))
	}
	kinds = append(kinds, string(model.Dead), string(model.Silent), "restart")
	if *convergeKinds == "" {
		return kinds
	}
	return strings.Split(*convergeKinds, ",")
}

// Limits of the watcher under test, small so that an oversized fault costs
// little; the model's pods are far below them.
const (
	convergeFrameLimit = 64 << 10
	convergeNode       = "node-a"
)

// convergeBound is how long after the history ends and faults stop the watcher
// may take to settle on the final state. A faulted request in flight lasts
// until its end: a silent watch its timeout (at most twice MinWatchTimeout)
// plus the stall grace, a dead request the 60s header timeout, a dripping list
// the server's 60s request timeout. Against a server that ignores
// sendInitialEvents, the watch list after it only falls back to a list when
// its stream ends, one more watch timeout. Then a backoff of at most 30s, a
// Retry-After of at most 10s, and a minute for the relist itself.
func convergeBound(minWatch time.Duration) time.Duration {
	return 4*minWatch + DefaultStallGrace + 2*time.Minute + 30*time.Second + 10*time.Second + time.Minute
}

// TestConverge runs a reflector into an undelta store against the model
// apiserver over a seeded random history with faults of one kind, on fake
// time, and proves every push a state the server had at that version, never
// older than the push before, and the last one the final state, reached within
// convergeBound after faults stop. synctest.Test fails if any goroutine is
// left behind.
func TestConverge(t *testing.T) {
	for _, kind := range convergeKindList() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var sum convergeSum
			for seed := *convergeFrom; seed < *convergeFrom+*convergeSeeds; seed++ {
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { sum.add(runConverge(t, kind, uint64(seed))) })
				})
			}
			t.Logf("converge: kind=%s seeds=%d pushes=%d changes=%d requests=%d faults-struck=%d max-settle=%v",
				kind, sum.seeds, sum.pushes, sum.changes, sum.requests, sum.struck, sum.maxSettle)
		})
	}
}

// convergeSum adds up one kind's seeds for the log.
type convergeSum struct {
	mu                                       sync.Mutex
	seeds, pushes, changes, requests, struck int
	maxSettle                                time.Duration
}

type convergeResult struct {
	pushes, changes, requests, struck int
	settle                            time.Duration
}

func (s *convergeSum) add(r convergeResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seeds++
	s.pushes += r.pushes
	s.changes += r.changes
	s.requests += r.requests
	s.struck += r.struck
	s.maxSettle = max(s.maxSettle, r.settle)
}

// convergeLog keeps a seed's story (requests, faults, reflector steps) for
// its failure message.
type convergeLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *convergeLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, time.Now().UTC().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
}

func (l *convergeLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.lines
	if len(lines) > 400 {
		lines = append([]string{fmt.Sprintf("... %d lines before", len(lines)-400)}, lines[len(lines)-400:]...)
	}
	return strings.Join(lines, "\n")
}

// seedRand is the seed's generator; the kind is mixed in so that kinds do not
// share histories.
func seedRand(kind string, seed uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(kind))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// planFor draws one to four faults of kind for the requests of a run.
func planFor(kind fault.Kind, r *rand.Rand) []fault.Fault {
	var out []fault.Fault
	for range 1 + r.IntN(4) {
		f := fault.Fault{Kind: kind, Nth: 1 + r.IntN(8), Events: r.IntN(6)}
		switch r.IntN(3) {
		case 0:
			f.On = "list"
		case 1:
			f.On = "watch"
		}
		switch kind {
		case fault.Cut:
			if r.IntN(3) == 0 {
				f.Events, f.Bytes = 0, 1+r.Int64N(3000)
			}
		case fault.GoneEvent, model.Silent:
			f.On = "watch"
		case fault.TooMany:
			f.Wait = time.Duration(1+r.IntN(10)) * time.Second
		case fault.Stall:
			f.Wait = time.Duration(1+r.IntN(180)) * time.Second
		case fault.Drip:
			f.Wait = time.Duration(100+r.IntN(900)) * time.Millisecond
		case fault.Oversized:
			f.Size = convergeFrameLimit + 1 + r.Int64N(4*convergeFrameLimit)
		case fault.HTML:
			f.Status = []int{502, 503, 504}[r.IntN(3)]
		}
		out = append(out, f)
	}
	return out
}

// convergeRun is one seed's world: the model server and its history, the
// churn to play, and the watcher under test feeding the checker.
type convergeRun struct {
	kind     string
	seed     uint64
	log      *convergeLog
	hist     *model.History
	srv      *model.Server
	churn    *model.Churner
	tr       *http.Transport
	checker  *model.Checker
	refl     *Reflector[*api.Pod]
	minWatch time.Duration
}

// newConvergeRun draws the seed's server, faults, churn and reflector
// settings; it starts nothing but the server.
func newConvergeRun(t *testing.T, kind string, seed uint64) *convergeRun {
	r := seedRand(kind, seed)
	c := &convergeRun{kind: kind, seed: seed, log: &convergeLog{}, hist: model.NewHistory(0)}
	var faults []fault.Fault
	restarts := 0
	switch kind {
	case "none":
	case "restart":
		restarts = 1 + r.IntN(3)
	default:
		faults = planFor(fault.Kind(kind), r)
	}
	c.srv = model.NewServer(c.hist, model.Options{
		Faults: faults, GoneAsEvent: r.IntN(2) == 0, Seed: seed, Logf: c.log.printf,
		WatchList: []string{"", "", "refuse", "ignore"}[r.IntN(4)],
		WarmUp:    time.Duration(r.IntN(3)) * time.Duration(r.Int64N(int64(5*time.Second))),
	})
	c.churn = model.NewChurner(c.srv, r, model.ChurnOptions{Node: convergeNode, Changes: 20 + r.IntN(40), Restarts: restarts})
	if err := c.churn.Populate(); err != nil {
		t.Fatalf("populate: %v", err)
	}
	c.tr = c.srv.Transport()
	client, err := rest.NewClient(rest.Config{Host: model.URL, Transport: c.tr})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	lw := NewListWatchFromClient(client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", convergeNode), api.Codec)
	lw.Limits = rest.ListLimits{MaxItemBytes: convergeFrameLimit}
	lw.Decoder = watch.DecoderOptions{MaxFrameSize: convergeFrameLimit}
	c.checker = model.NewChecker(c.hist, convergeNode)
	c.minWatch = []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute}[r.IntN(3)]
	opts := ReflectorOptions{
		Name: "pods", WatchList: r.IntN(2) == 0, PageSize: []int64{0, 0, 2, 3}[r.IntN(4)],
		MinWatchTimeout: c.minWatch, Rand: rand.New(rand.NewPCG(seed, 1)).Float64,
		Observe: func(s Step) {
			if s.Kind != StepResourceVersion {
				c.log.printf("reflector: %s rv=%s %s %v", s.Kind, s.ResourceVersion, s.Event, s.Err)
			}
		},
	}
	c.log.printf("seed %d kind %s: faults %v, watch list %t, page %d, min watch %v, %d pods at %d",
		seed, kind, faults, opts.WatchList, opts.PageSize, c.minWatch, c.hist.Changes(), c.srv.RV())
	c.refl = NewReflector[*api.Pod](lw, NewUndeltaStore(c.checker.Push, MetaNamespaceKey[*api.Pod]), opts)
	return c
}

// runConverge runs one seed inside the caller's synctest bubble: the
// reflector through the whole churn, then convergeBound without faults; then
// it stops everything and checks every push.
func runConverge(t *testing.T, kind string, seed uint64) convergeResult {
	c := newConvergeRun(t, kind, seed)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.refl.Run(ctx)
	}()
	if err := c.churn.Run(); err != nil {
		t.Fatalf("churn: %v", err)
	}
	c.srv.StopFaults()
	ended := time.Now()
	c.log.printf("history ended at %d; faults stopped", c.hist.Last())
	time.Sleep(convergeBound(c.minWatch))
	synctest.Wait()
	cancel()
	<-done
	c.srv.Close()
	c.tr.CloseIdleConnections()

	fail := func(err error) {
		t.Helper()
		t.Fatalf("seed %d kind %s: %v\nfaults struck: %q\nstory:\n%s", seed, kind, err, c.srv.Struck(), c.log.String())
	}
	if err := c.checker.Check(); err != nil {
		fail(err)
	}
	if err := c.checker.CheckFinal(); err != nil {
		fail(err)
	}
	settled, ok := c.checker.SettledAt()
	if !ok {
		fail(fmt.Errorf("never settled"))
	}
	if *convergeTrace {
		t.Logf("story:\n%s", c.log.String())
	}
	return convergeResult{
		pushes: len(c.checker.Pushes()), changes: c.hist.Changes(), requests: c.srv.Requests(),
		struck: len(c.srv.Struck()), settle: max(0, settled.Sub(ended)),
	}
}
