package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/h2tap"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// tracedRunOptions says how a traced run reaches the apiserver, traces and
// watches.
type tracedRunOptions struct {
	// Rest is the client's configuration; the trace instruments it.
	Rest rest.Config
	// Trace are the Tracer's options; the run adds its JSON sink, and the
	// HTTP/2 tap when none is given, as the commands do.
	Trace trace.Options
	// Reflector are the reflector's options; Observe is the trace's.
	Reflector cache.ReflectorOptions
}

// tracedRun is a reflector of node's pods, traced in JSON lines that the
// test can read back while it runs and once it stopped.
type tracedRun struct {
	tr     *trace.Tracer
	out    *lockedBuffer
	pushes *pushLog
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// startTracedRun starts a traced run that ends with the test, if it was not
// stopped before.
func startTracedRun(t *testing.T, ctx context.Context, opts tracedRunOptions) *tracedRun {
	t.Helper()
	r := &tracedRun{out: &lockedBuffer{}, pushes: &pushLog{}, done: make(chan struct{})}
	topts := opts.Trace
	topts.Sinks = append(append([]trace.Sink(nil), topts.Sinks...), trace.JSON(r.out))
	if topts.Tap == nil {
		topts.Tap = h2tap.New()
	}
	r.tr = trace.New(topts)
	in := trace.NewInstrument[*api.Pod](r.tr)
	cfg := opts.Rest
	in.Configure(&cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	store := in.WrapStore(cache.NewUndeltaStore(func(items []*api.Pod, rv string) {
		in.Pushed(items, rv)
		r.pushes.push(items, rv)
	}, cache.MetaNamespaceKey[*api.Pod]))
	ropts := opts.Reflector
	ropts.Observe = in.Observe
	refl := cache.NewReflector(nodeListWatch(client), store, ropts)
	ctx, r.cancel = context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		refl.Run(ctx)
	}()
	t.Cleanup(func() { r.stopRun(t) })
	return r
}

// stopRun ends the run and closes its trace; safe twice.
func (r *tracedRun) stopRun(t *testing.T) {
	r.once.Do(func() {
		r.cancel()
		select {
		case <-r.done:
		case <-time.After(wait):
			t.Errorf("the reflector did not stop within %s", wait)
		}
		if err := r.tr.Close(); err != nil {
			t.Errorf("close the trace: %v", err)
		}
	})
}

// stop ends the run and returns its trace's summary.
func (r *tracedRun) stop(t *testing.T) trace.Stop {
	t.Helper()
	r.stopRun(t)
	for _, s := range r.steps(t) {
		if s.Stop != nil {
			return *s.Stop
		}
	}
	t.Fatalf("the trace has no summary:\n%s", r.out.String())
	return trace.Stop{}
}

// steps reads back the trace as far as it is written.
func (r *tracedRun) steps(t *testing.T) []tracedStep {
	t.Helper()
	return parseTrace[tracedStep](t, r.out.String())
}

// tracedStep is what the tests read of a JSON trace line.
type tracedStep struct {
	Kind     trace.Kind
	Req      int
	Decision *trace.Decision
	Request  *trace.Request
	Response *trace.Response
	Event    *trace.Event
	BodyEnd  *trace.BodyEnd `json:"body-end"`
	Stall    *trace.Stall
	Missed   *trace.Missed
	Stop     *trace.Stop
}

// parseTrace reads the lines of a JSON trace, each into an S; a last line
// still being written (no newline yet) is left out.
func parseTrace[S any](t *testing.T, data string) []S {
	t.Helper()
	var out []S
	for line := range strings.Lines(data) {
		if !strings.HasSuffix(line, "\n") {
			break
		}
		var s S
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line is not JSON: %v: %q", err, line)
		}
		out = append(out, s)
	}
	return out
}

// readTrace reads a JSON trace file as far as it is written.
func readTrace[S any](t *testing.T, path string) []S {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	return parseTrace[S](t, string(data))
}
