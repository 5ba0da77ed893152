package benchcmd

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
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

const benchUsage = `Usage: podwatch bench sync|decode [flags]

Benchmarks, each printing one JSON line on stdout. See docs/BENCH.md and make
bench, whose synthetic apiserver and stream files come from the benchserver
tool (internal/benchserver/cmd/benchserver).

  bench sync --server URL --node NODE --until-rv RV [--watch-list=true|false]
             [--content-type json|protobuf|cbor] [--chunk-size N]
             [--cpuprofile FILE] [connection flags]
      the api source's reflector and undelta store, as in a kubelet, until a
      push reflects RV; prints pushes, sync_s, total_s, mallocs, total_alloc_mb
  bench decode --stream FILE [--repeat K] [--content-type json|protobuf|cbor]
      decode a watch stream as the server sends it (newline-delimited JSON
      events, or length-prefixed protobuf frames) K times in memory after one
      warm-up pass; prints events, events_per_s, mb_per_s, allocs_per_event,
      bytes_per_event
`

// Run runs podwatch bench with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, benchUsage)
		return base.Usagef("bench", "no benchmark given")
	}
	switch sub, subArgs := args[0], args[1:]; sub {
	case "sync":
		return benchSync(ctx, e, subArgs)
	case "decode":
		return benchDecode(e, subArgs)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.Stdout, benchUsage)
		return base.ErrHelp
	default:
		return base.Usagef("bench", "unknown benchmark %q", sub)
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

// SyncResult is the line bench sync prints, in JSON.
type SyncResult struct {
	Pushes       int64   `json:"pushes"`
	SyncS        float64 `json:"sync_s"`
	TotalS       float64 `json:"total_s"`
	Mallocs      uint64  `json:"mallocs"`
	TotalAllocMB float64 `json:"total_alloc_mb"`
}

func benchSync(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("bench sync", benchUsage)
	var conn base.ConnFlags
	conn.Register(c)
	node := c.Flags.String("node", "node-1", "the `node` whose pods to watch")
	untilRV := c.Flags.String("until-rv", "", "exit once a push reflects this `resourceVersion` or a later one")
	watchList := c.Flags.Bool("watch-list", true, "get the initial state as a streaming watch list (false: a paginated list)")
	chunk := c.Flags.Int64("chunk-size", 500, "list page size (0: one page)")
	profile := c.Flags.String("cpuprofile", "", "write a CPU profile of the run to this `file`")
	format := c.Flags.String("content-type", "json", "the `format` to ask lists and watches for: json, protobuf (the kubelet's) or cbor")
	if _, err := c.Parse(e.Stdout, args); err != nil {
		return err
	}
	wf, ok := wire.ParseName(*format)
	if !ok {
		return base.Usagef(c.Name, "--content-type %q: want json, protobuf or cbor", *format)
	}
	if *profile != "" {
		stop, err := startCPUProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if _, err := meta.CompareResourceVersions(*untilRV, *untilRV); err != nil || *untilRV == "" {
		return base.Usagef(c.Name, "--until-rv %q: want a resourceVersion", *untilRV)
	}
	cfg, err := conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	cfg.ContentType = wf.ContentType()
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pushes := &syncPushes{start: start, until: *untilRV, reached: make(chan struct{})}
	src := source.NewAPI(client, *node, source.APIOptions{
		Reflector:  cache.ReflectorOptions{WatchList: *watchList, PageSize: *chunk},
		Instrument: pushes,
	})
	out := make(chan podconfig.PodUpdate)
	taken := make(chan struct{})
	go func() { // what a pod config would take in
		defer close(taken)
		for {
			select {
			case <-out:
			case <-ctx.Done():
				return
			}
		}
	}()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		src.Run(ctx, out) // without GiveUp it returns nil, once ctx ends
	}()
	select {
	case <-pushes.reached:
	case <-ctx.Done():
	}
	total := time.Since(start)
	cancel()
	<-ran
	<-taken
	if !pushes.once.Load() {
		return fmt.Errorf("bench sync: stopped before resourceVersion %s (at %q)", *untilRV, pushes.lastRV())
	}
	mallocs, mb := memFigures()
	return printJSON(e.Stdout, SyncResult{Pushes: pushes.n.Load(), SyncS: time.Duration(pushes.synced.Load()).Seconds(),
		TotalS: total.Seconds(), Mallocs: mallocs, TotalAllocMB: mb})
}

// syncPushes is bench sync's Instrument of the api source: it counts pushes
// and tells when one reflects the resourceVersion waited for.
type syncPushes struct {
	start   time.Time
	until   string
	reached chan struct{}
	once    atomic.Bool
	n       atomic.Int64
	synced  atomic.Int64 // nanoseconds from start to the first push
	last    atomic.Value // string: the resourceVersion of the last push
}

func (p *syncPushes) Observe(cache.Step)                                      {}
func (p *syncPushes) WrapStore(s cache.Store[*api.Pod]) cache.Store[*api.Pod] { return s }

func (p *syncPushes) Pushed(_ []*api.Pod, rv string) {
	if p.n.Add(1) == 1 {
		p.synced.Store(int64(time.Since(p.start)))
	}
	p.last.Store(rv)
	if cmp, err := meta.CompareResourceVersions(rv, p.until); err == nil && cmp >= 0 && p.once.CompareAndSwap(false, true) {
		close(p.reached)
	}
}

func (p *syncPushes) lastRV() string {
	rv, _ := p.last.Load().(string)
	return rv
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
