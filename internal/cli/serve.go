package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/podwatch/podwatch/internal/fixture"
)

const serveUsage = `Usage: podwatch serve FIXTURE [--addr HOST:PORT] [--speed X] [--fault SPEC]... [--http2]

A fake apiserver that replays a recorded fixture (a folder holding
recording.json, or the file): requests are matched by path and query
(timeoutSeconds and resourceVersion aside), each recorded body is written
chunk by chunk at its recorded timing, and a request that matches no
recording gets a 404 Status saying so. Ctrl-C stops it.

Replay keeps the recording's state: once a client departs from what was
recorded (after a cut or an injected fault), a relist gets the recorded state
at the newest resourceVersion delivered, and a watch the recorded events after
its resourceVersion (410 if the recording cannot reach back that far).

Faults (--fault, repeatable, or --faults FILE) strike the Nth request of a
kind: cut:events=3,on=watch closes the connection after 3 events;
half-event, gone-event, stall:wait=10s, drip:wait=100ms, garbage and
oversized:size=1GiB strike after events=N; gone, 429:wait=2s, 500 and
html:status=502 replace the whole answer.

Point a watch at it with --server http://HOST:PORT and the flags it was
recorded with; with --http2, --server https://HOST:PORT and
--certificate-authority the file it names.
`

func (e Env) serveCmd(ctx context.Context, args []string) error {
	c := newCommand("serve", serveUsage)
	addr := c.fs.String("addr", "127.0.0.1:0", "the `address` to listen on (port 0: any free port)")
	speed := c.fs.Float64("speed", 1, "scale the recorded timing (2 twice as fast, 0 no waiting)")
	verbosity := c.fs.Int("v", 0, "log `level`: 6 each request and its status")
	var rf replayFaults
	rf.register(c.fs, "")
	caOut := c.fs.String("ca-out", "", "with --http2: write the serving certificate (the CA to trust) to this `file`")
	pos, err := c.parse(e.Stdout, args)
	if err != nil {
		return err
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
	log.printf("podwatch: serving %s (%d exchanges) on %s", pos[0], len(rec.Exchanges), fs.url())
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
