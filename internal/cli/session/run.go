package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/gap"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// Extras are what replay and record add to a watch.
type Extras struct {
	// Layers go beneath the trace, first closest to the network.
	Layers []base.Layer
	// Monitor, Played and Misses are the replay's.
	Monitor *replay.Monitor
	Played  <-chan struct{}
	Misses  func() []string
	// Ledger tells the trace's gap audit what a replay's recording knows.
	Ledger gap.Ledger
	// Clock is the replay's (nil: the wall clock): the reflector's waits
	// and the trace's timestamps run on it, as the client's (resthook's Clock).
	Clock timing.Clock
}

// Run builds the client for cfg and the session for p, and runs it until
// ctx ends or the session stops on its own (see session); every goroutine
// it started has returned by then, and the trace is closed.
func Run(ctx context.Context, e base.Env, f *Flags, p Plan, cfg rest.Config, x Extras) (err error) {
	cfg.ContentType = f.restContentType()
	log := base.NewLogger(e.Stderr, f.Verbosity).WrapAt(e.StderrWidth())
	if x.Clock != nil {
		f.Trace.Clock = x.Clock.Now // the trace's timestamps: the replay's time
		// Its stall check too, so that at speed 0 a silence is judged when
		// the replay's time passes, not the wall clock's.
		f.Trace.StallClock, _ = x.Clock.(timing.TimerClock)
	}
	f.Trace.Ledger = x.Ledger
	tally := &tally{}
	f.Trace.Also = []trace.Sink{tally}
	tr, closeTrace, err := f.Trace.Open(e, log)
	if err != nil {
		return err
	}
	var s *session
	// Told after every goroutine of the session has returned: the trace is
	// complete then, and so are the closing line's counts.
	defer func() {
		traceErr := closeTrace()
		if err == nil && traceErr == nil && s != nil && !f.Trace.TellsOnStderr() {
			pods, rv := s.held.text()
			log.Printf("%s", base.Fold("podwatch: ", closingLine(pods, rv, tally.stop), e.StderrWidth()))
		}
		if traceErr == nil {
			f.Trace.Written(log)
		}
		err = errors.Join(err, traceErr)
	}()
	var prog *progress
	// A text trace on the terminal tells all the line would, line by line;
	// the two drawn on one screen would overwrite each other.
	if e.StderrIsTerminal() && !f.Trace.TellsOnStderr() {
		prog = newProgress(log, f.Trace.StallAfter)
	}
	// The trace goes right beneath the credentials, so it sees requests as
	// they are sent; the layers added next go beneath it.
	in := trace.NewInstrument[*api.Pod](tr)
	in.Configure(&cfg)
	layers := append([]base.Layer{}, x.Layers...)
	if x.Monitor != nil {
		layers = append(layers, x.Monitor.Layer())
	}
	layers = append(layers, prog.layer(), base.HTTPLogLayer(log))
	addLayers(&cfg, layers...)
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	if tr != nil {
		tr.Begin(client.Host().Redacted(), p.Describe())
	} else {
		// No trace asked for: the closing line's counts still come from
		// one, fed by the reflector, its store and its pushes, but not by
		// the transport, whose tracing of every request and byte a run
		// without a trace should not pay for (nor wait on).
		clock := e.Now
		if f.Trace.Clock != nil {
			clock = f.Trace.Clock
		}
		// The gap audit counts what a relist shows missed, for the line.
		tr = trace.New(trace.Options{Sinks: []trace.Sink{tally}, Clock: clock, Analyses: []trace.Analysis{gap.New(x.Ledger)}})
		closeTrace = tr.Close
		in = trace.NewInstrument[*api.Pod](tr)
	}
	s = &session{
		env: e, flags: f, plan: p, log: log, host: client.Host(), prog: prog, monitor: x.Monitor, trace: in, clock: x.Clock,
		closing: &closingSteps{Instrument: in},
	}
	text := textOptions{noHeaders: f.noHeaders}
	if f.timestamps {
		// The replay's clock when replaying, as the trace's: a line and the
		// trace's steps then tell the same time.
		text.stamp = e.Now
		if x.Clock != nil {
			text.stamp = x.Clock.Now
		}
	}
	stdout := e.Stdout
	if prog != nil {
		stdout = log.Stdout(e.Stdout) // stdout may share the progress line's terminal
	}
	s.out = newPrinter(stdout, f.output, f.events, text)
	if f.output == "json" {
		s.out.diffs = newPrintDiffs(f.Trace.Diff.Mode)
	}
	s.lw = &cache.ListWatch[*api.Pod]{
		Client: client, Resource: "pods", Namespace: p.Namespace,
		FieldSelector: p.FieldSelector, LabelSelector: p.LabelSelector,
		Codec: meta.Codec[*api.Pod]{
			JSON: func(data []byte) (*api.Pod, error) {
				prog.item()
				x.Monitor.Decoded()
				return api.DecodePod(data)
			},
			Protobuf: func(tm meta.TypeMeta, data []byte) (*api.Pod, error) {
				prog.item()
				x.Monitor.Decoded()
				return api.DecodePodProtobuf(tm, data)
			},
		},
		Decoder: watch.DecoderOptions{KeepRaw: f.events},
	}
	if !f.events {
		s.api = source.NewAPIFrom(s.lw, source.APIOptions{Reflector: s.reflectorOptions(), Instrument: s.closing})
	}
	if log.V(2) {
		log.Printf("podwatch: watching pods on %s: %s", client.Host().Redacted(), p.Describe())
	}
	s.played = x.Played
	err = s.run(ctx)
	if x.Misses != nil && log.V(2) {
		for _, m := range x.Misses() {
			log.Printf("podwatch: replay: no recorded exchange for %s", m)
		}
	}
	if err != nil && x.Monitor != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return err
}

// addLayers puts inner (first = closest to the network) beneath whatever
// cfg.WrapTransport already adds (the kubeconfig's credentials), so that the
// trace and the recorder see requests as they are finally sent.
func addLayers(cfg *rest.Config, inner ...base.Layer) {
	outer := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		for _, l := range inner {
			if l != nil {
				rt = l(rt)
			}
		}
		if outer != nil {
			rt = outer(rt)
		}
		return rt
	}
}
