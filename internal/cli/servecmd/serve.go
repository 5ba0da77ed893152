package servecmd

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/replay"
	"github.com/podwatch/podwatch/internal/fixture"
)

const serveUsage = `Usage: podwatch serve FIXTURE [--addr HOST:PORT] [--speed X] [--loop] [--fault SPEC]... [--http2]
       podwatch serve --simulate [--seed S] [--addr HOST:PORT] [--fault SPEC]... [--http2]

A fake apiserver that replays a recorded fixture (a folder holding
recording.json, or the file) to any client: podwatch, client-go, kubectl.
At startup it prints the podwatch watch and kubectl command lines that
watch it as it was recorded, ready to copy. While a client asks what the
recorded client asked, it gets the recorded exchanges in order, each body
chunk by chunk at its recorded timing.

One replay is shared by every client, as one apiserver is: recorded time
starts at the first request for the recorded pods (--speed scales it), and
a client that comes later joins the replay where it has got to. A request
for pods the recording does not hold (another node's, say) gets a 400 that
says which it holds and which flags ask for them, and leaves the replay
alone. A client that asks for the recorded pods otherwise than the
recorded client did is answered from the replay's position in the
recording, the newest recorded resourceVersion whose moment has passed: a
list or watch list gets the state there (or at a newer recorded
resourceVersion it asks not to be older than), and every watch
stays open and carries the recorded changes as they become due, until its
timeout, a recorded connection that broke off, or a 410 ERROR event (at
once for a watch from before a recorded compaction already passed). The
replay does not restart, unless --loop: then, once it is over, the next
client that lists (from no resourceVersion) plays it again from its start.
Discovery is answered for pods; a request the apiserver would refuse gets
its Status.

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
	loop := c.Flags.Bool("loop", false, "once the recording has been played, play it again from its start for the next client that lists")
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
		switch {
		case len(pos) > 0:
			return base.Usagef(c.Name, "--simulate takes no fixture, got %q", pos[0])
		case *loop:
			return base.Usagef(c.Name, "--loop replays a fixture; --simulate has no end to loop from")
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
	srv := fixture.NewServerWithOptions(rec, fixture.Options{Speed: *speed, Faults: faults, Log: replay.Log(log), Loop: *loop,
		Refused: func(asked, hint string) {
			log.Printf("podwatch: refused a client asking for the pods of %s with a 400 that tells it:", asked)
			log.Printf("  %s", hint)
		}})
	var h http.Handler = srv
	if log.V(base.VerboseRequests) {
		h = base.LogRequests(log, h)
	}
	fs, err := base.StartServer(*addr, h, rf.HTTP2)
	if err != nil {
		return err
	}
	defer fs.Close()
	log.Printf("podwatch: serving %s (%d exchanges) on %s", pos[0], len(rec.Exchanges), fs.URL())
	var ca string
	if fs.CA() != nil {
		if ca, err = writeCA(*caOut, fs.CA(), log); err != nil {
			return err
		}
	}
	tellHowToWatch(log, rec, fs.URL(), ca, *speed, *loop)
	followPlays(ctx, srv, *loop, log)
	for _, m := range srv.Misses() {
		log.Printf("podwatch: no recorded exchange matched %s", m)
	}
	return nil
}

// tellHowToWatch prints the command lines that watch the replay as it was
// recorded, and how the replay shares its recording among clients: a
// newcomer's first try is otherwise a client of the wrong node, or a
// second client that wonders where the start went.
func tellHowToWatch(log *base.Logger, rec *fixture.Recording, url, ca string, speed float64, loop bool) {
	if pw, kc, ok := replay.WatchCommands(rec, url, ca); ok {
		log.Printf("podwatch: watch it as it was recorded:")
		log.Printf("  %s", pw)
		log.Printf("  %s", kc)
	}
	again := "Restart serve, or serve it with --loop, to play it again."
	if loop {
		again = "With --loop, once it is over, the next client that lists plays it again."
	}
	if speed == 0 {
		log.Printf("podwatch: at --speed 0 the whole recording is due at once: a client that asks what the recorded client")
		log.Printf("  asked gets its exchanges in order, any other its final state; a request for other pods gets a 400.")
		log.Printf("  %s", again)
		return
	}
	log.Printf("podwatch: the first request for these pods starts the recording's clock, and every client shares it: a client")
	log.Printf("  that comes later joins the replay where it has got to, as clients of one apiserver share its present. A request")
	log.Printf("  for other pods gets a 400 and leaves the clock alone.")
	log.Printf("  %s", again)
}

// followPlays says when a play of the recording is over, and with --loop
// when the next starts, until ctx ends.
func followPlays(ctx context.Context, srv *fixture.Server, loop bool, log *base.Logger) {
	for {
		n, done, next := srv.Play()
		select {
		case <-done:
			if loop {
				log.Printf("podwatch: the recording has been played to its end; the next client that lists plays it again")
			} else {
				log.Printf("podwatch: the recording has been played to its end; its final state stays served until Ctrl-C")
			}
		case <-next: // started again, though no client saw its end
		case <-ctx.Done():
			return
		}
		select {
		case <-next:
			log.Printf("podwatch: a client listed afresh: playing the recording again from its start (play %d)", n+1)
		case <-ctx.Done():
			return
		}
	}
}

// writeCA saves the replay's serving certificate where a client can trust it:
// the --ca-out file, or a new file in the temporary folder. It returns the
// file's path.
func writeCA(path string, pemData []byte, log *base.Logger) (string, error) {
	if path == "" {
		f, err := os.CreateTemp("", "podwatch-replay-ca-*.pem")
		if err != nil {
			return "", fmt.Errorf("serve: %w", err)
		}
		path = f.Name()
		f.Close()
	}
	if err := os.WriteFile(path, pemData, 0o644); err != nil {
		return "", fmt.Errorf("serve: %w", err)
	}
	log.Printf("podwatch: serving HTTP/2 over TLS; trust it with --certificate-authority %s", path)
	return path, nil
}
