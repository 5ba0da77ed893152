package cli

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/rest"
)

// replayWatch is watch --replay: the fixture served on a loopback port of
// this process, watched like a cluster, until every recorded exchange has
// been played and its output printed.
func replayWatch(ctx context.Context, e base.Env, c *base.Command, f *watchFlags) error {
	rec, err := fixture.Load(f.replay)
	if err != nil {
		return err
	}
	p, err := planReplay(c, f, rec, e)
	if err != nil {
		return err
	}
	faults, err := f.faults.planFaults(c.Name)
	if err != nil {
		return err
	}
	f.trace.Run.Fixture, f.trace.Run.Faults = replayRun(f).Fixture, replayRun(f).Faults
	log := base.NewLogger(e.Stderr, f.verbosity)
	// One clock for the replay: the server's recorded time, the client's
	// waits and guards, and the trace's timestamps. At speed 0 it is
	// virtual, and nothing waits on the wall clock.
	clock := replayclock.ForSpeed(f.speed, e.Wall)
	// An injected stall or drip moves that clock once the client has
	// settled (see fixture.Options.Settle), as the monitor tells.
	mon := newReplayMonitor()
	srv := fixture.NewServerWithOptions(rec, fixture.Options{Speed: f.speed, Faults: faults, Log: replayLog(log), Clock: clock,
		Settle: mon.settle})
	if err := srv.Serves(p.namespace, p.fieldSelector, p.labelSelector); err != nil {
		return base.Usagef(c.Name, "--replay %s: %v", f.replay, err)
	}
	fs, err := base.StartServer("127.0.0.1:0", mon.handler(srv), f.faults.http2)
	if err != nil {
		return err
	}
	defer fs.Close()
	cfg := rest.Config{Host: fs.URL(), UserAgent: base.UserAgent(), TLS: rest.TLSConfig{CAData: fs.CA()}, Clock: clock}
	return runSession(ctx, e, f, p, cfg, sessionExtras{monitor: mon, played: srv.Done(), misses: srv.Misses,
		ledger: recordingLedger{srv}, clock: clock})
}

// planReplay takes what the flags leave unset from the recording's first pods
// request, so that a fixture replays without repeating the flags it was
// recorded with: the fixture server answers only requests shaped like the
// recorded ones.
func planReplay(c *base.Command, f *watchFlags, rec *fixture.Recording, e base.Env) (watchPlan, error) {
	p := watchPlan{
		node:          f.node,
		namespace:     f.namespace,
		labelSelector: f.selector,
		watchList:     f.watchList,
		chunkSize:     f.chunkSize,
		maxEvents:     f.maxEvents,
	}
	first, list := firstPodsRequests(rec)
	selectorGiven := c.Set("node") || c.Set("all-nodes") || c.Set("field-selector")
	if first == nil || selectorGiven {
		computed, err := f.planWatch(e)
		if err != nil {
			return watchPlan{}, err
		}
		p.node, p.fieldSelector = computed.node, computed.fieldSelector
	} else {
		p.fieldSelector = first.Query.Get("fieldSelector")
		if p.node == "" {
			p.node = nodeFromSelector(p.fieldSelector)
		}
	}
	if first != nil {
		if !c.Set("namespace") {
			p.namespace = namespaceOf(first.Path)
		}
		if !c.Set("selector") {
			p.labelSelector = first.Query.Get("labelSelector")
		}
		if !c.Set("watch-list") {
			p.watchList = first.Query.Get("sendInitialEvents") == "true"
		}
	}
	if list != nil && !c.Set("chunk-size") {
		p.chunkSize, _ = strconv.ParseInt(list.Query.Get("limit"), 10, 64)
	}
	if p.node == "" && (f.manifests != "" || f.manifestURL != "") {
		h, err := e.NodeName()
		if err != nil {
			return watchPlan{}, err
		}
		p.node = h
	}
	return p, nil
}

// firstPodsRequests returns the recording's first request for pods, and its
// first list (not watch) request for pods.
func firstPodsRequests(rec *fixture.Recording) (first, list *fixture.Request) {
	for i := range rec.Exchanges {
		r := &rec.Exchanges[i].Request
		if r.Method != http.MethodGet || !strings.HasSuffix(r.Path, "/pods") {
			continue
		}
		if first == nil {
			first = r
		}
		if list == nil && r.Query.Get("watch") != "true" && !strings.Contains(r.Path, "/watch/") {
			list = r
		}
	}
	return first, list
}

func namespaceOf(path string) string {
	_, after, ok := strings.Cut(path, "/namespaces/")
	if !ok {
		return ""
	}
	ns, _, _ := strings.Cut(after, "/")
	return ns
}

// nodeFromSelector finds spec.nodeName=NODE in a field selector, read as
// the fixture servers read one; "" when it names no node or is malformed.
func nodeFromSelector(sel string) string {
	terms, st := apiwire.ParseFieldSelector(sel)
	if st != nil {
		return ""
	}
	for _, t := range terms {
		if t.Field == "spec.nodeName" && t.Op == "=" {
			return t.Value
		}
	}
	return ""
}

// replayLog sends the replay server's notes (what it made up, which faults
// struck) to the -v 6 log.
func replayLog(log *base.Logger) func(string, ...any) {
	if !log.V(base.VerboseRequests) {
		return nil
	}
	return func(format string, args ...any) { log.Printf("replay: "+format, args...) }
}
