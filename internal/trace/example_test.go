package trace_test

import (
	"os"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/rest/meta"
)

type pod struct{ meta.ObjectMeta }

func (p *pod) Meta() *meta.ObjectMeta { return &p.ObjectMeta }

// A tracer fed by hand, through its Instrument, with what a reflector and
// its undelta store would tell it. In podwatch the Instrument is wired into
// the client (Configure), the reflector (Observe), its store (WrapStore) and
// the undelta store's pushes (Pushed).
func Example() {
	tr := trace.New(trace.Options{
		Sinks: []trace.Sink{text.New(os.Stdout, text.Options{})},
		Clock: func() time.Time { return time.Time{} }, // stable times
	})
	tr.Begin("https://apiserver:6443", "pods on node-a")
	in := trace.NewInstrument[*pod](tr)
	in.Observe(cache.Step{Kind: cache.StepRelist, Cause: cache.RelistGone, ResourceVersion: "224"})
	web1 := &pod{meta.ObjectMeta{Namespace: "shop", Name: "web-1", ResourceVersion: "215"}}
	in.Pushed([]*pod{web1}, "227")
	if err := tr.Close(); err != nil {
		panic(err)
	}
	// Output:
	//    0.000  trace         of https://apiserver:6443: pods on node-a
	//    0.000  reflector     relist: the next sync lists again instead of resuming the watch
	//                          because: resourceVersion 224 is too old (410)
	//    0.000  push          1 pod at rv 227: +shop/web-1@215
	//    0.000  trace         end after 0s: 0 requests, 0 events, 1 push, 1 relist, 0 backoffs
}
