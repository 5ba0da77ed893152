package servecmd

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/fixture"
)

const serveUsage = `Usage: podwatch serve FIXTURE [--addr HOST:PORT] [--speed X] [--fault SPEC]... [--http2]
       podwatch serve --simulate [--seed S] [--addr HOST:PORT] [--fault SPEC]... [--http2]

A fake apiserver that replays a recorded fixture (a folder holding
recording.json, or the file) to any client: podwatch, client-go, kubectl.
The startup line says which podwatch watch flags it was recorded with.
While a client asks what the recorded client asked, it gets the recorded
exchanges in order, each body chunk by chunk at its recorded timing.

Recorded time runs from the first request (--speed scales it). A client that
asks anything else is answered from the replay's position in the recording,
the newest recorded resourceVersion whose moment has passed: a list or watch
list gets the state there (or at a newer recorded resourceVersion it asks
not to be older than), and every watch stays open and carries the recorded
changes as they become due, until its timeout, a recorded connection that
broke off, or a 410 ERROR event (at once for a watch from before a recorded
compaction already passed). The replay does not restart. Discovery is
answered for pods; a request the apiserver would refuse gets its Status.

Faults (--fault, repeatable, or --faults FILE) strike the Nth request of a
kind: cut:events=3,on=watch closes the connection after 3 events;
half-event, gone-event, stall:wait=10s, drip:wait=100ms, garbage and
oversized:size=1GiB strike after events=N; gone, 429:wait=2s, 500 and
html:status=502 replace the whole answer.

With --simulate there is no fixture: the model apiserver serves pods that
churn as a live cluster's do (created, bound, updated, deleted; on node-a,
node-b, node-c or unbound), from a seeded random history (--seed), with
honest resourceVersions, a compaction point that moves up (410 for older
versions, as an ERROR event on a watch), bookmarks on idle watches and
streaming watch lists. It does not restart, and keeps its whole history.

Point a watch at it with --server http://HOST:PORT; with --http2,
--server https://HOST:PORT and --certificate-authority the file it names.
`

// Run runs podwatch serve with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("serve", serveUsage)
	addr := c.Flags.String("addr", "127.0.0.1:0", "the `address` to listen on (port 0: any free port)")
	speed := c.Flags.Float64("speed", 1, "scale the recorded timing (2 twice as fast, 0 no waiting)")
	verbosity := c.Flags.Int("v", 0, "log `level`: 6 each request and its status")
	var rf replay.Faults
	rf.Register(c.Flags, "")
	caOut := c.Flags.String("ca-out", "", "with --http2: write the serving certificate (the CA to trust) to this `file`")
	simulate := c.Flags.Bool("simulate", false, "serve the model apiserver's churning pods instead of a fixture")
	seed := c.Flags.Uint64("seed", 1, "with --simulate: the `seed` of the simulated history")
	pos, err := c.Parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if *simulate {
		if len(pos) > 0 {
			return base.Usagef(c.Name, "--simulate takes no fixture, got %q", pos[0])
		}
		faults, err := rf.Plan(c.Name)
		if err != nil {
			return err
		}
		return simulateCluster(ctx, *addr, *seed, faults, rf.HTTP2, *caOut, base.NewLogger(e.Stderr, *verbosity))
	}
	switch {
	case len(pos) == 0:
		return base.Usagef(c.Name, "no fixture given")
	case len(pos) > 1:
		return base.Usagef(c.Name, "unexpected argument %q", pos[1])
	case *speed < 0:
		return base.Usagef(c.Name, "--speed %g: must not be negative", *speed)
	}
	rec, err := fixture.Load(pos[0])
	if err != nil {
		return err
	}
	faults, err := rf.Plan(c.Name)
	if err != nil {
		return err
	}
	log := base.NewLogger(e.Stderr, *verbosity)
	srv := fixture.NewServerWithOptions(rec, fixture.Options{Speed: *speed, Faults: faults, Log: replay.Log(log)})
	var h http.Handler = srv
	if log.V(base.VerboseRequests) {
		h = base.LogRequests(log, h)
	}
	fs, err := base.StartServer(*addr, h, rf.HTTP2)
	if err != nil {
		return err
	}
	defer fs.Close()
	log.Printf("podwatch: serving %s (%d exchanges, recorded with %s) on %s", pos[0], len(rec.Exchanges), recordedFlags(rec), fs.URL())
	if fs.CA() != nil {
		if err := writeCA(*caOut, fs.CA(), log); err != nil {
			return err
		}
	}
	select {
	case <-srv.Done():
		log.Printf("podwatch: every recorded exchange has been played; still serving until Ctrl-C")
		<-ctx.Done()
	case <-ctx.Done():
	}
	for _, m := range srv.Misses() {
		log.Printf("podwatch: no recorded exchange matched %s", m)
	}
	return nil
}

// writeCA saves the replay's serving certificate where a client can trust it:
// the --ca-out file, or a new file in the temporary folder.
func writeCA(path string, pemData []byte, log *base.Logger) error {
	if path == "" {
		f, err := os.CreateTemp("", "podwatch-replay-ca-*.pem")
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		path = f.Name()
		f.Close()
	}
	if err := os.WriteFile(path, pemData, 0o644); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Printf("podwatch: serving HTTP/2 over TLS; trust it with --certificate-authority %s", path)
	return nil
}

// recordedFlags says which watch flags the recorded client ran with, so a
// client pointed at the replay can ask what was recorded.
func recordedFlags(rec *fixture.Recording) string {
	first, list := replay.FirstPodsRequests(rec)
	if first == nil {
		return "no pods requests"
	}
	var flags []string
	switch node := replay.NodeFromSelector(first.Query.Get("fieldSelector")); {
	case node != "":
		flags = append(flags, "--node "+node)
	case first.Query.Get("fieldSelector") == "":
		flags = append(flags, "--all-nodes")
	}
	if sel := first.Query.Get("fieldSelector"); sel != "" && replay.NodeFromSelector(sel) == "" {
		flags = append(flags, "--field-selector "+sel)
	}
	if ns := replay.NamespaceOf(first.Path); ns != "" {
		flags = append(flags, "--namespace "+ns)
	}
	if sel := first.Query.Get("labelSelector"); sel != "" {
		flags = append(flags, "--selector "+sel)
	}
	flags = append(flags, fmt.Sprintf("--watch-list=%t", first.Query.Get("sendInitialEvents") == "true"))
	if list != nil {
		size := list.Query.Get("limit")
		if size == "" {
			size = "0"
		}
		flags = append(flags, "--chunk-size "+size)
	}
	return strings.Join(flags, " ")
}
