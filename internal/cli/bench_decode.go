package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"context"

	"github.com/podwatch/podwatch/internal/benchserver"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

type decodeResult struct {
	Events         int     `json:"events"`
	EventsPerS     float64 `json:"events_per_s"`
	MBPerS         float64 `json:"mb_per_s"`
	AllocsPerEvent float64 `json:"allocs_per_event"`
	BytesPerEvent  float64 `json:"bytes_per_event"`
}

// decodeStream decodes every event of data once; it returns how many.
func decodeStream(data []byte) (int, error) {
	d := watch.NewDecoder(io.NopCloser(bytes.NewReader(data)), api.DecodePod, watch.DecoderOptions{})
	n := 0
	for {
		ev, err := d.Decode()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("event %d: %w", n+1, err)
		}
		if ev.Object == nil {
			return n, fmt.Errorf("event %d: no object", n+1)
		}
		n++
	}
}

func (e Env) benchDecode(args []string) error {
	c := newCommand("bench decode", benchUsage)
	stream := c.fs.String("stream", "", "a watch stream `file`: newline-delimited events")
	repeat := c.fs.Int("repeat", 10, "timed passes over the stream")
	if _, err := c.parse(e.Stdout, args); err != nil {
		return err
	}
	if *stream == "" || *repeat <= 0 {
		return usagef(c.name, "want --stream FILE and --repeat > 0")
	}
	data, err := os.ReadFile(*stream)
	if err != nil {
		return fmt.Errorf("bench decode: %w", err)
	}
	events, err := decodeStream(data) // the warm-up pass
	if err != nil {
		return fmt.Errorf("bench decode %s: %w", *stream, err)
	}
	if events == 0 {
		return fmt.Errorf("bench decode %s: no events", *stream)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := 0; i < *repeat; i++ {
		if _, err := decodeStream(data); err != nil {
			return err
		}
	}
	elapsed := time.Since(start).Seconds()
	runtime.ReadMemStats(&after)
	n := float64(events * *repeat)
	return printJSON(e.Stdout, decodeResult{
		Events:         events,
		EventsPerS:     n / elapsed,
		MBPerS:         float64(len(data)) * float64(*repeat) / elapsed / (1 << 20),
		AllocsPerEvent: float64(after.Mallocs-before.Mallocs) / n,
		BytesPerEvent:  float64(after.TotalAlloc-before.TotalAlloc) / n,
	})
}

// benchPodFlags are the synthetic server's: the template and the counts.
type benchPodFlags struct {
	pod          string
	pods, events int
	node         string
	vary         bool
}

func (b *benchPodFlags) register(c *command) {
	c.fs.StringVar(&b.pod, "pod", "testdata/pod.json", "the template pod `file` (JSON)")
	c.fs.IntVar(&b.pods, "pods", 110, "how many copies of the pod")
	c.fs.IntVar(&b.events, "events", 2000, "how many MODIFIED events after them")
	c.fs.StringVar(&b.node, "node", "node-1", "the `node` the copies are bound to")
	c.fs.BoolVar(&b.vary, "vary", false, "make the copies differ where replicas do (times, token volume, container IDs, pod IP), not only in name, uid and resourceVersion")
}

func (b *benchPodFlags) server() (*benchserver.Server, error) {
	tmpl, err := os.ReadFile(b.pod)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if b.pods <= 0 || b.events < 0 {
		return nil, fmt.Errorf("bench: --pods %d --events %d: want pods > 0, events >= 0", b.pods, b.events)
	}
	pods, err := benchserver.NewPods(tmpl, b.pods, b.node, benchserver.PodsOptions{Vary: b.vary})
	if err != nil {
		return nil, err
	}
	return &benchserver.Server{Pods: pods, M: b.events}, nil
}

func (e Env) benchStream(args []string) error {
	c := newCommand("bench stream", benchUsage)
	var b benchPodFlags
	b.register(c)
	out := c.fs.String("out", "", "the stream `file` to write")
	if _, err := c.parse(e.Stdout, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef(c.name, "no --out given")
	}
	srv, err := b.server()
	if err != nil {
		return err
	}
	var buf []byte
	for k := 0; k < srv.M; k++ {
		buf = srv.Pods.Event(buf, "MODIFIED", srv.Pods.EventPod(k), srv.Pods.EventRV(k))
	}
	if err := os.WriteFile(*out, buf, 0o644); err != nil {
		return fmt.Errorf("bench stream: %w", err)
	}
	return printJSON(e.Stdout, map[string]any{"events": srv.M, "bytes": len(buf), "last_rv": srv.LastRV()})
}

func (e Env) benchServe(ctx context.Context, args []string) error {
	c := newCommand("bench serve", benchUsage)
	var b benchPodFlags
	b.register(c)
	addr := c.fs.String("addr", "127.0.0.1:0", "the `address` to listen on")
	if _, err := c.parse(e.Stdout, args); err != nil {
		return err
	}
	srv, err := b.server()
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	hs := &http.Server{Handler: srv}
	done := make(chan struct{})
	go func() { defer close(done); hs.Serve(l) }()
	fmt.Fprintf(e.Stderr, "podwatch bench: serving %d pods and %d events (last resourceVersion %d) on http://%s\n",
		b.pods, b.events, srv.LastRV(), l.Addr())
	<-ctx.Done()
	hs.Close()
	<-done
	return nil
}
