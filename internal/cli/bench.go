package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

const benchUsage = `Usage: podwatch bench sync|decode [flags]

Benchmarks, each printing one JSON line on stdout. See docs/BENCH.md and make
bench, whose synthetic apiserver and stream files come from the benchserver
tool (internal/benchserver/cmd/benchserver).

  bench sync --server URL --node NODE --until-rv RV [--watch-list=true|false]
             [--chunk-size N] [--cpuprofile FILE] [connection flags]
      the api source's reflector and undelta store, as in a kubelet, until a
      push reflects RV; prints pushes, sync_s, total_s, mallocs, total_alloc_mb
  bench decode --stream FILE [--repeat K]
      decode a watch stream (newline-delimited events) K times in memory after
      one warm-up pass; prints events, events_per_s, mb_per_s,
      allocs_per_event, bytes_per_event
`

func (e Env) benchCmd(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, benchUsage)
		return usagef("bench", "no benchmark given")
	}
	switch sub, subArgs := args[0], args[1:]; sub {
	case "sync":
		return e.benchSync(ctx, subArgs)
	case "decode":
		return e.benchDecode(subArgs)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.Stdout, benchUsage)
		return errHelp
	default:
		return usagef("bench", "unknown benchmark %q", sub)
	}
}

// memFigures are the process's allocation totals, read at the end of a run.
func memFigures() (mallocs uint64, totalMB float64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs, float64(ms.TotalAlloc) / (1 << 20)
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

type syncResult struct {
	Pushes       int64   `json:"pushes"`
	SyncS        float64 `json:"sync_s"`
	TotalS       float64 `json:"total_s"`
	Mallocs      uint64  `json:"mallocs"`
	TotalAllocMB float64 `json:"total_alloc_mb"`
}

func (e Env) benchSync(ctx context.Context, args []string) error {
	c := newCommand("bench sync", benchUsage)
	var conn connFlags
	conn.register(c)
	node := c.fs.String("node", "node-1", "the `node` whose pods to watch")
	untilRV := c.fs.String("until-rv", "", "exit once a push reflects this `resourceVersion` or a later one")
	watchList := c.fs.Bool("watch-list", true, "get the initial state as a streaming watch list (false: a paginated list)")
	chunk := c.fs.Int64("chunk-size", 500, "list page size (0: one page)")
	profile := c.fs.String("cpuprofile", "", "write a CPU profile of the run to this `file`")
	if _, err := c.parse(e.Stdout, args); err != nil {
		return err
	}
	if *profile != "" {
		stop, err := startCPUProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if _, err := meta.CompareResourceVersions(*untilRV, *untilRV); err != nil || *untilRV == "" {
		return usagef(c.name, "--until-rv %q: want a resourceVersion", *untilRV)
	}
	cfg, err := conn.restConfig(c.name, e)
	if err != nil {
		return err
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pushes atomic.Int64
	var synced atomic.Int64 // nanoseconds from start to the first push
	reached := make(chan struct{})
	var once atomic.Bool
	push := func(_ []*api.Pod, rv string) {
		if pushes.Add(1) == 1 {
			synced.Store(int64(time.Since(start)))
		}
		if cmp, err := meta.CompareResourceVersions(rv, *untilRV); err == nil && cmp >= 0 && once.CompareAndSwap(false, true) {
			close(reached)
		}
	}
	lw := cache.NewListWatchFromClient(client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", *node), api.DecodePod)
	store := cache.NewUndeltaStore(push, cache.MetaNamespaceKey[*api.Pod])
	r := cache.NewReflector[*api.Pod](lw, store, cache.ReflectorOptions{Name: "bench", WatchList: *watchList, PageSize: *chunk})
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	select {
	case <-reached:
	case <-ctx.Done():
	}
	total := time.Since(start)
	cancel()
	<-done
	if ctx.Err() != nil && !once.Load() {
		return fmt.Errorf("bench sync: stopped before resourceVersion %s (at %q)", *untilRV, r.LastSyncResourceVersion())
	}
	mallocs, mb := memFigures()
	return printJSON(e.Stdout, syncResult{Pushes: pushes.Load(), SyncS: time.Duration(synced.Load()).Seconds(),
		TotalS: total.Seconds(), Mallocs: mallocs, TotalAllocMB: mb})
}

// startCPUProfile profiles the process into path until the returned stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
