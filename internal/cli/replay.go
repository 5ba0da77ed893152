package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/rest"
)

// replayWatch is watch --replay: the fixture served on a loopback port of
// this process, watched like a cluster, until every recorded exchange has
// been played and its output printed.
func (e Env) replayWatch(ctx context.Context, c *command, f *watchFlags) error {
	rec, err := fixture.Load(f.replay)
	if err != nil {
		return err
	}
	p, err := planReplay(c, f, rec, e)
	if err != nil {
		return err
	}
	faults, err := f.faults.planFaults(c.name)
	if err != nil {
		return err
	}
	f.trace.run.Fixture, f.trace.run.Faults = replayRun(f).Fixture, replayRun(f).Faults
	log := newLogger(e.Stderr, f.verbosity)
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
		return usagef(c.name, "--replay %s: %v", f.replay, err)
	}
	fs, err := startFixtureServer("127.0.0.1:0", mon.handler(srv), f.faults.http2)
	if err != nil {
		return err
	}
	defer fs.close()
	cfg := rest.Config{Host: fs.url(), UserAgent: userAgent(), TLS: rest.TLSConfig{CAData: fs.caPEM}}
	return e.runSession(ctx, f, p, cfg, sessionExtras{monitor: mon, played: srv.Done(), misses: srv.Misses,
		ledger: recordingLedger{srv}, clock: clock})
}

// fixtureServer is an http.Server on its own listener, with the goroutines
// it runs accounted for.
type fixtureServer struct {
	addr   string
	caPEM  []byte // set when it serves TLS: the certificate to trust
	hs     *http.Server
	served chan struct{}

	// mu orders handlers.Add before handlers.Wait: once closed is set no
	// handler starts, so Wait never races an Add.
	mu       sync.Mutex
	closed   bool
	handlers sync.WaitGroup
}

// startFixtureServer serves h on addr: HTTP/1.1 in clear, or with overTLS
// HTTP/2 over TLS with a certificate made for this run.
func startFixtureServer(addr string, h http.Handler, overTLS bool) (*fixtureServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve fixture: %w", err)
	}
	fs := &fixtureServer{addr: l.Addr().String(), served: make(chan struct{})}
	var tlsCfg *tls.Config
	if overTLS {
		cert, caPEM, err := replayCert()
		if err != nil {
			l.Close()
			return nil, err
		}
		fs.caPEM = caPEM
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	fs.hs = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !fs.enter() {
				// A Status, as the apiserver answers while it shuts down,
				// in the form the client asked for (protobuf for the
				// kubelet): a client reads it as the server's refusal, not
				// as a body it cannot parse.
				rw, _ := apiwire.Respond(w, r)
				apiwire.ServiceUnavailable("podwatch: the server is shutting down").Write(rw)
				return
			}
			defer fs.handlers.Done()
			h.ServeHTTP(w, r)
		}),
		// A client going away mid-watch is normal here, not worth a log line.
		ErrorLog:  log.New(io.Discard, "", 0),
		TLSConfig: tlsCfg, // ServeTLS offers h2 and http/1.1 on it
	}
	go func() {
		defer close(fs.served)
		// Both return http.ErrServerClosed on close.
		if tlsCfg != nil {
			fs.hs.ServeTLS(l, "", "")
		} else {
			fs.hs.Serve(l)
		}
	}()
	return fs, nil
}

// url is the base URL clients use.
func (fs *fixtureServer) url() string {
	if fs.caPEM != nil {
		return "https://" + fs.addr
	}
	return "http://" + fs.addr
}

// replayLog sends the replay server's notes (what it made up, which faults
// struck) to the -v 6 log.
func replayLog(log *logger) func(string, ...any) {
	if !log.V(verboseRequests) {
		return nil
	}
	return func(format string, args ...any) { log.printf("replay: "+format, args...) }
}

// close closes the listener and every connection, which ends the handlers
// (their request contexts end), and waits for them.
func (fs *fixtureServer) close() {
	fs.refuse()
	fs.hs.Close()
	<-fs.served
	fs.handlers.Wait()
}

// refuse makes every request from now on get a 503 Status instead of its
// handler: a request on a kept-alive connection can still arrive while
// close closes the connections.
func (fs *fixtureServer) refuse() {
	fs.mu.Lock()
	fs.closed = true
	fs.mu.Unlock()
}

// enter counts a handler in, unless the server is closing.
func (fs *fixtureServer) enter() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.closed {
		return false
	}
	fs.handlers.Add(1)
	return true
}

// planReplay takes what the flags leave unset from the recording's first pods
// request, so that a fixture replays without repeating the flags it was
// recorded with: the fixture server answers only requests shaped like the
// recorded ones.
func planReplay(c *command, f *watchFlags, rec *fixture.Recording, e Env) (watchPlan, error) {
	p := watchPlan{
		node:          f.node,
		namespace:     f.namespace,
		labelSelector: f.selector,
		watchList:     f.watchList,
		chunkSize:     f.chunkSize,
		maxEvents:     f.maxEvents,
	}
	first, list := firstPodsRequests(rec)
	selectorGiven := c.set("node") || c.set("all-nodes") || c.set("field-selector")
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
		if !c.set("namespace") {
			p.namespace = namespaceOf(first.Path)
		}
		if !c.set("selector") {
			p.labelSelector = first.Query.Get("labelSelector")
		}
		if !c.set("watch-list") {
			p.watchList = first.Query.Get("sendInitialEvents") == "true"
		}
	}
	if list != nil && !c.set("chunk-size") {
		p.chunkSize, _ = strconv.ParseInt(list.Query.Get("limit"), 10, 64)
	}
	if p.node == "" && (f.manifests != "" || f.manifestURL != "") {
		h, err := hostname(e)
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
