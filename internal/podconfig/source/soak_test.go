package source

import (
	"context"
	"flag"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// soakEvents is how many watch events TestSoak takes. The default run takes
// 250,000 (about 40 s on a loaded 2-core machine, at some 6,000 events a
// second: the model server encodes each one, on fake time); make test-soak
// takes a million (-soak.events=1000000, about three minutes). Under the race
// detector, which runs it some six times slower, the default is soakRaceEvents:
// the race run looks for data races, the million-event run for growth.
var soakEvents = flag.Int("soak.events", 250_000, "TestSoak: watch events to take before stopping")

const soakRaceEvents = 50_000

// soakTarget is the number of events this run takes.
func soakTarget() int {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "soak.events" })
	if raceDetector && !set {
		return soakRaceEvents
	}
	return *soakEvents
}

// Bounds of TestSoak, counted, not timed: what the watcher may gain from the
// first sync to the end. The model's history grows with every change (a few
// thousand over the run, under 1 MiB), and the heap after a GC moves with
// the pods present; a watcher that kept each event, push, watch or
// goroutine would pass these long before a quarter of a million events.
const (
	soakHeapGain      = 16 << 20
	soakGoroutineGain = 4
	soakNode          = "node-a"
	soakFrameLimit    = 64 << 10
	soakPods          = 4000 // about a fifth on the node
	soakChurn         = 5    // changes between two restarts
)

// soakCounter counts what the reflector took: watch events, the initial
// objects of watch lists, syncs.
type soakCounter struct {
	events, syncs atomic.Int64
	watchList     bool // the sync under way is a watch list (reflector goroutine only)
}

func (c *soakCounter) Observe(st cache.Step) {
	switch st.Kind {
	case cache.StepEvent:
		c.events.Add(1)
	case cache.StepWatchList:
		c.watchList = true
	case cache.StepList:
		c.watchList = false
	case cache.StepReplace:
		c.syncs.Add(1)
		if c.watchList {
			c.events.Add(int64(st.Items) + 1) // the objects and the closing bookmark
		}
	}
}
func (c *soakCounter) WrapStore(s cache.Store[*api.Pod]) cache.Store[*api.Pod] { return s }
func (c *soakCounter) Pushed([]*api.Pod, string)                               {}

// soakFaults plans a stream fault on every third watch, of a rotating kind
// (a cut, half an event, garbage, an oversized frame, a 410 ERROR event),
// after a random number of events: inside a watch list's initial objects
// (onNode of them) or after them.
func soakFaults(r *rand.Rand, watches, onNode int) []fault.Fault {
	kinds := []fault.Kind{fault.Cut, fault.HalfEvent, fault.Garbage, fault.Oversized, fault.GoneEvent}
	var out []fault.Fault
	for nth := 3; nth <= watches; nth += 3 {
		out = append(out, fault.Fault{Kind: kinds[(nth/3)%len(kinds)], On: "watch", Nth: nth,
			Events: r.IntN(onNode + 10), Size: soakFrameLimit + 1})
	}
	return out
}

// TestSoak runs the api source (reflector and undelta store) against a
// churning model server with faults on every watch, on fake time, through
// soak.events watch events, and checks that the goroutines and the live heap
// after a GC at the end are within soakGoroutineGain and soakHeapGain of
// what they were after the first sync.
func TestSoak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The faults need the number of pods on the node, so the same
		// seeded population is made twice: once to count them.
		populate := func(srv *model.Server) *model.Churner {
			c := model.NewChurner(srv, rand.New(rand.NewPCG(17, 71)), model.ChurnOptions{Node: soakNode, Initial: soakPods, Changes: soakChurn})
			if err := c.Populate(); err != nil {
				t.Fatal(err)
			}
			return c
		}
		counted := model.NewServer(model.NewHistory(0), model.Options{})
		populate(counted)
		onNode, _ := counted.History().Current(soakNode)
		counted.Close()
		target := soakTarget()
		faults := soakFaults(rand.New(rand.NewPCG(17, 3)), 4*target/len(onNode)+100, len(onNode))
		srv := model.NewServer(model.NewHistory(0), model.Options{Faults: faults, Seed: 17})
		defer srv.Close()
		churn := populate(srv)
		tr := srv.Transport()
		defer tr.CloseIdleConnections()
		client, err := rest.NewClient(rest.Config{Host: model.URL, Transport: tr})
		if err != nil {
			t.Fatal(err)
		}
		lw := cache.NewListWatchFromClient(client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", soakNode), api.Codec)
		lw.Limits = rest.ListLimits{MaxItemBytes: soakFrameLimit}
		lw.Decoder = watch.DecoderOptions{MaxFrameSize: soakFrameLimit}
		count := &soakCounter{}
		src := NewAPIFrom(lw, APIOptions{Instrument: count, Reflector: cache.ReflectorOptions{
			WatchList: true, PageSize: 500, MinWatchTimeout: time.Hour, Rand: rand.New(rand.NewPCG(17, 1)).Float64,
		}})
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan podconfig.PodUpdate)
		pushes := 0
		consumed := make(chan struct{})
		go func() {
			defer close(consumed)
			for {
				select {
				case <-out:
					pushes++
				case <-ctx.Done():
					return
				}
			}
		}()
		done := goRun(ctx, src, out)
		for count.syncs.Load() == 0 {
			time.Sleep(time.Second)
		}
		synctest.Wait()
		heap0, g0 := liveHeap(), runtime.NumGoroutine()
		// Each round: a few changes, then a restart with a fresh cache,
		// after which the watch's version is gone (410) and the reflector
		// streams the whole state again.
		changes, restarts := 0, 0
		for count.events.Load() < int64(target) {
			if err := churn.Run(); err != nil {
				t.Fatal(err)
			}
			changes += soakChurn
			synced := count.syncs.Load()
			srv.Tick(1) // a write elsewhere: the compaction passes the watch's version
			srv.Restart(time.Second, true)
			restarts++
			for deadline := time.Now().Add(time.Hour); count.syncs.Load() == synced; time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					t.Fatalf("no sync within an hour (fake time) of restart %d", restarts)
				}
			}
		}
		synctest.Wait()
		heap1, g1 := liveHeap(), runtime.NumGoroutine()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		<-consumed
		t.Logf("soak: %d events, %d syncs, %d pushes, %d changes, %d restarts, %d requests, %d faults struck; live heap %.1f -> %.1f MiB, goroutines %d -> %d",
			count.events.Load(), count.syncs.Load(), pushes, changes, restarts, srv.Requests(), len(srv.Struck()),
			float64(heap0)/(1<<20), float64(heap1)/(1<<20), g0, g1)
		if heap1 > heap0+soakHeapGain {
			t.Errorf("live heap grew from %d to %d bytes, more than %d", heap0, heap1, soakHeapGain)
		}
		if g1 > g0+soakGoroutineGain {
			t.Errorf("goroutines grew from %d to %d, more than %d", g0, g1, soakGoroutineGain)
		}
	})
}

// liveHeap is the heap still in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
