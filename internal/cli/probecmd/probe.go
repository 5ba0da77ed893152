package probecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/probe"
	"github.com/podwatch/podwatch/rest"
)

const probeUsage = `Usage: podwatch probe --write [connection flags] [--node N] [--namespace NS]
                      [--canary NAME] [--every D] [--count N] [--timeout D] [-o text|json]

Measures how stale the node's pod watch is. Every --every it patches a
timestamp annotation (` + probe.Annotation + `) onto a canary pod bound to
the node and times the annotation's arrival on podwatch's own watch of the
node's pods: the lag in seconds (local wall clock, from the PATCH sent to
the event applied) and in resourceVersions (how many versions the cluster
had moved past the watch's last event or bookmark when the patch was
acknowledged). One line per probe, then a summary at exit (Ctrl-C, or
--count probes): p50, p99 and max of both, over a uniform sample of at most
10,000 probes (exact up to that; max is always exact).

The probe writes, so it runs only with --write: it creates the canary
(podwatch-probe-NODE in --namespace, or --canary; one left by an earlier
probe on the same node is adopted), patches it, and deletes it on exit,
Ctrl-C included. It needs permission to list and watch pods across all
namespaces, and to create, get, patch and delete pods in the namespace;
a refusal names the permission missing.

-o json prints one object per probe and the summary as
  {"summary":{"probes":N,"lost":N,"lag_s":{"p50":..,"p99":..,"max":..},"rvLag":{...},"sampled":N}}
`

// Run runs podwatch probe with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("probe", probeUsage)
	var conn base.ConnFlags
	conn.Register(c)
	node := c.Flags.String("node", "", "the `node` whose watch is probed and to which the canary is bound (default: the hostname)")
	ns := c.Flags.String("namespace", "default", "the `namespace` of the canary")
	c.Alias("n", "namespace")
	name := c.Flags.String("canary", "", "the canary pod's `name` (default podwatch-probe-NODE)")
	every := c.Flags.Duration("every", 5*time.Second, "the `interval` between probes")
	count := c.Flags.Int("count", 0, "stop after this many probes (0: until Ctrl-C)")
	timeout := c.Flags.Duration("timeout", 30*time.Second, "a probe whose annotation has not come within this `duration` is lost")
	write := c.Flags.Bool("write", false, "let the probe create, patch and delete its canary pod")
	var output base.OutputFlag
	output.Register(c)
	if err := c.ParseNoArgs(e.Stdout, args); err != nil {
		return err
	}
	if err := output.Check(c); err != nil {
		return err
	}
	switch {
	case *every <= 0 || *timeout <= 0:
		return base.Usagef(c.Name, "--every and --timeout must be positive")
	case *count < 0:
		return base.Usagef(c.Name, "--count %d: must not be negative", *count)
	}
	if *node == "" {
		h, err := e.NodeName()
		if err != nil {
			return err
		}
		*node = h
	}
	canary := *name
	if canary == "" {
		canary = "podwatch-probe-" + *node
	}
	if !*write {
		return base.Usagef(c.Name, "the probe writes to the cluster: it creates the pod %s/%s bound to node %s, patches its %s annotation every %v, and deletes it on exit; give --write to let it",
			*ns, canary, *node, probe.Annotation, *every)
	}
	cfg, err := conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	p := probePrinter{w: e.Stdout, json: output.JSON()}
	sum, err := probe.Run(ctx, probe.Options{Client: client, Node: *node, Namespace: *ns, Canary: canary,
		Every: *every, Count: *count, Timeout: *timeout, Report: p.sample})
	if sum != nil {
		p.summary(sum)
	}
	if err != nil {
		// Its watch gives up on what the connection flags must fix, as
		// watch's does: say what.
		return base.WithConnRemedy(err, client.Host())
	}
	return p.err
}

// probePrinter prints each probe as it completes, and the summary.
type probePrinter struct {
	w    io.Writer
	json bool
	err  error
}

type probeLine struct {
	Probe                int       `json:"probe"`
	Sent                 time.Time `json:"sent"`
	Lost                 bool      `json:"lost,omitempty"`
	Lag                  *float64  `json:"lag_s,omitempty"`
	RVLag                int64     `json:"rvLag"`
	ResourceVersion      string    `json:"resourceVersion"`
	WatchResourceVersion string    `json:"watchResourceVersion"`
}

type quantilesJSON struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func (p *probePrinter) sample(s probe.Sample) {
	if p.json {
		l := probeLine{Probe: s.Probe, Sent: s.Sent.UTC(), Lost: s.Lost, RVLag: s.RVLag,
			ResourceVersion: s.ResourceVersion, WatchResourceVersion: s.WatchResourceVersion}
		if !s.Lost {
			lag := s.Lag.Seconds()
			l.Lag = &lag
		}
		p.writeJSON(l)
		return
	}
	if s.Lost {
		p.printf("probe %d: lost: the annotation did not come (patched at resourceVersion %s)\n", s.Probe, s.ResourceVersion)
		return
	}
	p.printf("probe %d: lag %.3fs, %d %s behind (patched at %s, watch at %s)\n",
		s.Probe, s.Lag.Seconds(), s.RVLag, base.Plural(int(s.RVLag), "resourceVersion", "resourceVersions"), s.ResourceVersion, s.WatchResourceVersion)
}

func (p *probePrinter) summary(s *probe.Summary) {
	if p.json {
		q := func(x probe.Quantiles) quantilesJSON { return quantilesJSON{x.P50, x.P99, x.Max} }
		p.writeJSON(map[string]any{"summary": map[string]any{"probes": s.Probes, "lost": s.Lost,
			"lag_s": q(s.Lag), "rvLag": q(s.RVLag), "sampled": s.Sampled}})
		return
	}
	p.printf("summary: %d %s arrived, %d lost", s.Probes, base.Plural(s.Probes, "probe", "probes"), s.Lost)
	if s.Probes > 0 {
		p.printf("; lag p50 %.3fs p99 %.3fs max %.3fs; resourceVersions behind p50 %g p99 %g max %g (over %d %s)",
			s.Lag.P50, s.Lag.P99, s.Lag.Max, s.RVLag.P50, s.RVLag.P99, s.RVLag.Max, s.Sampled, base.Plural(s.Sampled, "probe", "probes"))
	}
	p.printf("\n")
}

func (p *probePrinter) writeJSON(v any) {
	if p.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.err = err
		return
	}
	_, p.err = p.w.Write(append(b, '\n'))
}

func (p *probePrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
