package watchcmd

import (
	"context"
	"strconv"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/cli/session"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
)

// replayWatch is watch --replay: the fixture served on a loopback port of
// this process, watched like a cluster, until every recorded exchange has
// been played and its output printed.
func replayWatch(ctx context.Context, e base.Env, c *base.Command, f *session.Flags) error {
	rec, err := fixture.Load(f.Replay)
	if err != nil {
		return err
	}
	p, err := planReplay(c, f, rec, e)
	if err != nil {
		return err
	}
	faults, err := f.Faults.Plan(c.Name)
	if err != nil {
		return err
	}
	f.Trace.Run.Fixture, f.Trace.Run.Faults = replayRun(f).Fixture, replayRun(f).Faults
	log := base.NewLogger(e.Stderr, f.Verbosity)
	// One clock for the replay: the server's recorded time, the client's
	// waits and guards, and the trace's timestamps. At speed 0 it is
	// virtual, and nothing waits on the wall clock.
	clock := replayclock.ForSpeed(f.Speed, e.Wall)
	// An injected stall or drip moves that clock once the client has
	// settled (see fixture.Options.Settle), as the monitor tells.
	mon := replay.NewMonitor()
	srv := fixture.NewServerWithOptions(rec, fixture.Options{Speed: f.Speed, Faults: faults, Log: replay.Log(log), Clock: clock,
		Settle: mon.Settle})
	if err := srv.Serves(p.Namespace, p.FieldSelector, p.LabelSelector); err != nil {
		return base.Usagef(c.Name, "--replay %s: %v", f.Replay, err)
	}
	fs, err := base.StartServer("127.0.0.1:0", mon.Handler(srv), f.Faults.HTTP2)
	if err != nil {
		return err
	}
	defer fs.Close()
	cfg := rest.Config{Host: fs.URL(), UserAgent: base.UserAgent(), TLS: rest.TLSConfig{CAData: fs.CA()}}
	resthook.On(&cfg).Clock = clock
	return session.Run(ctx, e, f, p, cfg, session.Extras{Monitor: mon, Played: srv.Done(), Misses: srv.Misses,
		Ledger: recordingLedger{srv}, Clock: clock})
}

// planReplay takes what the flags leave unset from the recording's first pods
// request, so that a fixture replays without repeating the flags it was
// recorded with: the fixture server answers only requests shaped like the
// recorded ones.
func planReplay(c *base.Command, f *session.Flags, rec *fixture.Recording, e base.Env) (session.Plan, error) {
	p := session.Plan{
		Node:          f.Node,
		Namespace:     f.Namespace,
		LabelSelector: f.Selector,
		WatchList:     f.WatchList,
		ChunkSize:     f.ChunkSize,
		MaxEvents:     f.MaxEvents,
	}
	first, list := replay.FirstPodsRequests(rec)
	selectorGiven := c.Set("node") || c.Set("all-nodes") || c.Set("field-selector")
	if first == nil || selectorGiven {
		computed, err := f.Plan(e)
		if err != nil {
			return session.Plan{}, err
		}
		p.Node, p.FieldSelector = computed.Node, computed.FieldSelector
	} else {
		p.FieldSelector = first.Query.Get("fieldSelector")
		if p.Node == "" {
			p.Node = replay.NodeFromSelector(p.FieldSelector)
		}
	}
	if first != nil {
		if !c.Set("namespace") {
			p.Namespace = replay.NamespaceOf(first.Path)
		}
		if !c.Set("selector") {
			p.LabelSelector = first.Query.Get("labelSelector")
		}
		if !c.Set("watch-list") {
			p.WatchList = first.Query.Get("sendInitialEvents") == "true"
		}
	}
	if list != nil && !c.Set("chunk-size") {
		p.ChunkSize, _ = strconv.ParseInt(list.Query.Get("limit"), 10, 64)
	}
	if p.Node == "" && (f.Manifests != "" || f.ManifestURL != "") {
		h, err := e.NodeName()
		if err != nil {
			return session.Plan{}, err
		}
		p.Node = h
	}
	return p, nil
}
