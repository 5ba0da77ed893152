package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

func (e Env) watchCmd(ctx context.Context, args []string) error {
	c := newCommand("watch", watchUsage)
	var f watchFlags
	f.register(c, true)
	pos, err := c.parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	if err := f.check(c); err != nil {
		return err
	}
	if f.replay != "" {
		return e.replayWatch(ctx, c, &f)
	}
	cfg, err := f.conn.restConfig(c.name, e)
	if err != nil {
		return err
	}
	p, err := f.planWatch(e)
	if err != nil {
		return err
	}
	return e.runSession(ctx, &f, p, cfg, sessionExtras{})
}

// sessionExtras are what replay and record add to a watch.
type sessionExtras struct {
	// layers go beneath the trace, first closest to the network.
	layers []layer
	// monitor, played and misses are the replay's.
	monitor *replayMonitor
	played  <-chan struct{}
	misses  func() []string
	// ledger tells the trace's gap audit what a replay's recording knows.
	ledger trace.Ledger
	// clock is the replay's (nil: the wall clock): the client's waits and
	// guards, the reflector's and the trace's timestamps run on it.
	clock timing.Clock
}

// runSession builds the client and the session for p and runs it.
func (e Env) runSession(ctx context.Context, f *watchFlags, p watchPlan, cfg rest.Config, x sessionExtras) (err error) {
	cfg.ContentType = f.restContentType()
	log := newLogger(e.Stderr, f.verbosity)
	if x.clock != nil {
		resthook.On(&cfg).Clock = x.clock
		f.trace.clock = x.clock.Now // the trace's timestamps: the replay's time
		// Its stall check too, so that at speed 0 a silence is judged when
		// the replay's time passes, not the wall clock's.
		f.trace.stallClock, _ = x.clock.(timing.TimerClock)
	}
	tr, closeTrace, err := f.trace.openTrace(e, log)
	if err != nil {
		return err
	}
	tr.SetLedger(x.ledger)
	// Told after every goroutine of the session has returned: the trace is
	// complete then.
	defer func() { err = errors.Join(err, closeTrace()) }()
	var prog *progress
	// A text trace on the terminal tells all the line would, line by line;
	// the two drawn on one screen would overwrite each other.
	if e.StderrIsTerminal() && !f.trace.tellsOnStderr() {
		prog = newProgress(log, f.trace.stallAfter)
	}
	// The trace goes right beneath the credentials, so it sees requests as
	// they are sent; the layers added next go beneath it.
	in := trace.NewInstrument[*api.Pod](tr)
	in.Configure(&cfg)
	layers := append([]layer{}, x.layers...)
	if x.monitor != nil {
		layers = append(layers, x.monitor.layer())
	}
	layers = append(layers, prog.layer(), httpLogLayer(log))
	addLayers(&cfg, layers...)
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	if tr != nil {
		tr.Begin(client.Host().Redacted(), p.describe())
	}
	s := &session{
		env: e, flags: f, plan: p, log: log, prog: prog, monitor: x.monitor, trace: in, clock: x.clock,
		out: newPrinter(e.Stdout, f.output), closing: &closingSteps{Instrument: in},
	}
	if prog != nil {
		s.out = newPrinter(stdoutWriter{log, e.Stdout}, f.output) // stdout may share the progress line's terminal
	}
	if f.output == "json" {
		s.out.diffs = newPrintDiffs(f.trace.diff.mode)
	}
	s.lw = &cache.ListWatch[*api.Pod]{
		Client: client, Resource: "pods", Namespace: p.namespace,
		FieldSelector: p.fieldSelector, LabelSelector: p.labelSelector,
		Decode: func(data []byte) (*api.Pod, error) {
			prog.item()
			x.monitor.decoded()
			return api.DecodePod(data)
		},
		DecodeProtobuf: func(tm meta.TypeMeta, data []byte) (*api.Pod, error) {
			prog.item()
			x.monitor.decoded()
			return api.DecodePodProtobuf(tm, data)
		},
		Decoder: watch.DecoderOptions{KeepRaw: f.events},
	}
	if !f.events {
		s.api = source.NewAPIFrom(s.lw, source.APIOptions{Reflector: s.reflectorOptions(), Instrument: s.closing})
	}
	if log.V(2) {
		log.printf("podwatch: watching pods on %s: %s", client.Host().Redacted(), p.describe())
	}
	s.played = x.played
	err = s.run(ctx)
	if x.misses != nil && log.V(2) {
		for _, m := range x.misses() {
			log.printf("podwatch: replay: no recorded exchange for %s", m)
		}
	}
	if err != nil && x.monitor != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return err
}
