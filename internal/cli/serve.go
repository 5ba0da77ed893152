package cli

import (
	"context"
	"net/http"
	"time"

	"github.com/podwatch/podwatch/internal/fixture"
)

const serveUsage = `Usage: podwatch serve FIXTURE [--addr HOST:PORT] [--speed X]

A fake apiserver that replays a recorded fixture (a folder holding
recording.json, or the file): requests are matched by path and query
(timeoutSeconds and resourceVersion aside), each recorded body is written
chunk by chunk at its recorded timing, and a request that matches no
recording gets a 404 Status saying so. Ctrl-C stops it.

Point a watch at it with --server http://HOST:PORT and the flags it was
recorded with.
`

func (e Env) serveCmd(ctx context.Context, args []string) error {
	c := newCommand("serve", serveUsage)
	addr := c.fs.String("addr", "127.0.0.1:0", "the `address` to listen on (port 0: any free port)")
	speed := c.fs.Float64("speed", 1, "scale the recorded timing (2 twice as fast, 0 no waiting)")
	verbosity := c.fs.Int("v", 0, "log `level`: 6 each request and its status")
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
	log := newLogger(e.Stderr, *verbosity)
	srv := fixture.NewServer(rec, *speed)
	var h http.Handler = srv
	if log.V(traceRequests) {
		h = logRequests(log, h)
	}
	fs, err := startFixtureServer(*addr, h)
	if err != nil {
		return err
	}
	defer fs.close()
	log.printf("podwatch: serving %s (%d exchanges) on http://%s", pos[0], len(rec.Exchanges), fs.addr)
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
