package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

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

func (e Env) serveCmd(ctx context.Context, args []string) error {
	c := newCommand("serve", serveUsage)
	addr := c.fs.String("addr", "127.0.0.1:0", "the `address` to listen on (port 0: any free port)")
	speed := c.fs.Float64("speed", 1, "scale the recorded timing (2 twice as fast, 0 no waiting)")
	verbosity := c.fs.Int("v", 0, "log `level`: 6 each request and its status")
	var rf replayFaults
	rf.register(c.fs, "")
	caOut := c.fs.String("ca-out", "", "with --http2: write the serving certificate (the CA to trust) to this `file`")
	simulate := c.fs.Bool("simulate", false, "serve the model apiserver's churning pods instead of a fixture")
	seed := c.fs.Uint64("seed", 1, "with --simulate: the `seed` of the simulated history")
	pos, err := c.parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if *simulate {
		if len(pos) > 0 {
			return usagef(c.name, "--simulate takes no fixture, got %q", pos[0])
		}
		faults, err := rf.planFaults(c.name)
		if err != nil {
			return err
		}
		return e.simulate(ctx, *addr, *seed, faults, rf.http2, *caOut, newLogger(e.Stderr, *verbosity))
	}
	switch {
	case len(pos) == 0:
		return usagef(c.name, "no fixture given")
	case len(pos) > 1:
		return usagef(c.name, "unexpected argument %q", pos[1])
	case *speed < 0:
		return usagef(c.name, "--speed %g: must not be negative", *speed)
	}
	rec, err := fixture.Load(pos[0])
	if err != nil {
		return err
	}
	faults, err := rf.planFaults(c.name)
	if err != nil {
		return err
	}
	log := newLogger(e.Stderr, *verbosity)
	srv := fixture.NewServerWithOptions(rec, fixture.Options{Speed: *speed, Faults: faults, Log: replayLog(log)})
	var h http.Handler = srv
	if log.V(verboseRequests) {
		h = logRequests(log, h)
	}
	fs, err := startFixtureServer(*addr, h, rf.http2)
	if err != nil {
		return err
	}
	defer fs.close()
	log.printf("podwatch: serving %s (%d exchanges, recorded with %s) on %s", pos[0], len(rec.Exchanges), recordedFlags(rec), fs.url())
	if fs.caPEM != nil {
		if err := writeCA(*caOut, fs.caPEM, log); err != nil {
			return err
		}
	}
	select {
	case <-srv.Done():
		log.printf("podwatch: every recorded exchange has been played; still serving until Ctrl-C")
		<-ctx.Done()
	case <-ctx.Done():
	}
	for _, m := range srv.Misses() {
		log.printf("podwatch: no recorded exchange matched %s", m)
	}
	return nil
}

// logRequests logs each request when its answer is complete.
func logRequests(log *logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		log.printf("%s %s %d %s in %s", r.Method, r.URL.RequestURI(), sw.status, http.StatusText(sw.status), time.Since(start).Round(time.Millisecond))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeCA saves the replay's serving certificate where a client can trust it:
// the --ca-out file, or a new file in the temporary folder.
func writeCA(path string, pemData []byte, log *logger) error {
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
	log.printf("podwatch: serving HTTP/2 over TLS; trust it with --certificate-authority %s", path)
	return nil
}

// recordedFlags says which watch flags the recorded client ran with, so a
// client pointed at the replay can ask what was recorded.
func recordedFlags(rec *fixture.Recording) string {
	first, list := firstPodsRequests(rec)
	if first == nil {
		return "no pods requests"
	}
	var flags []string
	switch node := nodeFromSelector(first.Query.Get("fieldSelector")); {
	case node != "":
		flags = append(flags, "--node "+node)
	case first.Query.Get("fieldSelector") == "":
		flags = append(flags, "--all-nodes")
	}
	if sel := first.Query.Get("fieldSelector"); sel != "" && nodeFromSelector(sel) == "" {
		flags = append(flags, "--field-selector "+sel)
	}
	if ns := namespaceOf(first.Path); ns != "" {
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
