package model

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/fault"
)

// Fault kinds of the model's own, beside package fault's.
const (
	// Dead accepts the request and never answers, as a server whose process
	// hangs or a peer gone without a reset: only the client's wait for
	// response headers ends it.
	Dead fault.Kind = "dead"
	// Silent sends a watch's headers, then nothing, ever: only a watchdog on
	// the client's side ends it.
	Silent fault.Kind = "silent"
)

// Options tune a Server; the zero value works.
type Options struct {
	// Faults strike the requests their plan names while faults are on (from
	// NewServer until StopFaults).
	Faults []fault.Fault
	// GoneAsEvent answers a watch from a compacted resourceVersion as the
	// watch cache does, 200 and then an ERROR event with a 410 Status, instead
	// of a 410 answer.
	GoneAsEvent bool
	// BookmarkEvery is how often an idle watch with allowWatchBookmarks gets a
	// BOOKMARK; default 1m, as the apiserver.
	BookmarkEvery time.Duration
	// StaleZero is how many versions behind the newest a list at
	// resourceVersion "0" (any version, from a cache) may be served.
	StaleZero int64
	// WatchList says how the server treats a streaming watch list
	// (sendInitialEvents): "" serves it; "refuse" answers 422 as a server
	// from before watch lists does; "ignore" serves a plain watch, as one
	// that does not know the parameter.
	WatchList string
	// WarmUp is how long after a restart the server answers every request
	// with 403, 429 or 503, as an apiserver does while its authorizer and
	// caches warm up.
	WarmUp time.Duration
	// Seed drives the server's own choices (which warm-up answer).
	Seed uint64
	// Logf, when set, is told of every request and what the model did with it.
	Logf func(format string, args ...any)
}

// Server is a model apiserver for one History of pods. It serves /api/v1/pods
// (all namespaces or one, ?watch=true or the legacy /api/v1/watch/ prefix) and
// discovery on an in-memory network, which only its Transport reaches; as an
// http.Handler it can be served on any listener too (serve --simulate), where
// Restart drops only the in-memory network's connections.
type Server struct {
	opts   Options
	hist   *History
	net    *network
	srv    *http.Server
	served chan struct{}

	mu        sync.Mutex
	rv        int64     // the newest version, of any resource (a pod change or not)
	compacted int64     // versions older than this are gone (410)
	warmUntil time.Time // answer with warm-up errors until then
	rand      *rand.Rand
	notify    chan struct{} // closed and replaced at every change
	plan      *fault.Plan
	faultsOn  bool
	struck    []string
	requests  int
}

// NewServer starts serving h. Close stops it and waits for it.
func NewServer(h *History, opts Options) *Server {
	if opts.BookmarkEvery <= 0 {
		opts.BookmarkEvery = time.Minute
	}
	s := &Server{
		opts: opts, hist: h, net: newNetwork(), served: make(chan struct{}),
		notify: make(chan struct{}), plan: fault.NewPlan(opts.Faults...), faultsOn: len(opts.Faults) > 0,
		compacted: h.Start(), rv: h.Last(), rand: rand.New(rand.NewPCG(opts.Seed, 0x6d6f64656c)),
	}
	s.srv = &http.Server{Handler: s, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		defer close(s.served)
		s.srv.Serve(s.net)
	}()
	return s
}

// requestTimeout is how long the apiserver lets a request other than a watch
// run (its --request-timeout default).
const requestTimeout = time.Minute

// URL is the server's address for rest.Config.Host.
const URL = "http://model.invalid"

// Transport returns a new transport to the server, with the header timeout a
// rest.Client's own would have. The caller closes its idle connections when
// done.
func (s *Server) Transport() *http.Transport {
	return &http.Transport{
		DialContext:           s.net.DialContext,
		ResponseHeaderTimeout: 60 * time.Second,
		MaxIdleConnsPerHost:   4,
	}
}

// Close stops the server: every connection is closed, and Close returns once
// the accept loop has.
func (s *Server) Close() {
	s.srv.Close()
	s.net.Close()
	<-s.served
}

// History is the truth the server serves.
func (s *Server) History() *History { return s.hist }

// Apply appends c to the history and wakes every watch. c.Pod.RV must be
// newer than RV().
func (s *Server) Apply(c Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Pod.RV <= s.rv {
		return fmt.Errorf("model: %s of %s at %d is not after %d", c.Op, c.Pod.Key(), c.Pod.RV, s.rv)
	}
	if err := s.hist.Add(c); err != nil {
		return err
	}
	s.rv = c.Pod.RV
	s.wakeLocked()
	return nil
}

// Tick moves the newest version on by n without a pod change, as writes to
// other resources do: resourceVersions are etcd's, shared by all.
func (s *Server) Tick(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv += n
	s.wakeLocked()
}

// RV is the newest version.
func (s *Server) RV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

func (s *Server) wakeLocked() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// since returns the changes after cursor, the newest version they bring the
// watcher to, and a channel closed at the next change.
func (s *Server) since(cursor int64) ([]Change, int64, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hist.After(cursor), max(cursor, s.rv), s.notify
}

// Compact makes every version older than rv too old to watch from or to list
// exactly (410); it never moves back.
func (s *Server) Compact(rv int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compacted = max(s.compacted, min(rv, s.rv))
	s.logf("compacted to %d", s.compacted)
}

// Compacted is the oldest version still served.
func (s *Server) Compacted() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacted
}

// Restart drops every connection and refuses new ones for down, then serves
// again (after Options.WarmUp of refusals); versions carry on. With
// freshCache the restarted server keeps no history (a new watch cache,
// started after a compaction): every older version is gone. It blocks for
// down.
func (s *Server) Restart(down time.Duration, freshCache bool) {
	s.logf("restart: down %v, fresh cache %t", down, freshCache)
	s.net.setDown(true)
	if freshCache {
		s.Compact(s.RV())
	}
	time.Sleep(down)
	s.mu.Lock()
	s.warmUntil = time.Now().Add(s.opts.WarmUp)
	s.mu.Unlock()
	s.net.setDown(false)
}

// warmingUp returns the answer of a server still warming up, if it is.
func (s *Server) warmingUp() (code int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !time.Now().Before(s.warmUntil) {
		return 0, false
	}
	return []int{http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable}[s.rand.IntN(3)], true
}

// StopFaults ends fault injection: later requests are served as asked.
// Requests already struck carry on as their fault says.
func (s *Server) StopFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultsOn = false
}

// Struck lists the faults that struck, each with the request it struck.
func (s *Server) Struck() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.struck...)
}

// Requests is how many requests the server has seen.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// pick returns the fault for this request of kind ("list" or "watch"), if any.
func (s *Server) pick(kind, uri string) (fault.Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if !s.faultsOn {
		return fault.Fault{}, false
	}
	f, ok := s.plan.Pick(kind)
	if ok {
		s.struck = append(s.struck, f.String()+" @ "+uri)
	}
	return f, ok
}

// ServeHTTP routes a request to list or watch, striking it with its fault.
// Discovery is answered for pods; a request the apiserver would refuse gets
// its Status.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, _ = apiwire.Respond(w, r) // protobuf to a client that prefers it
	if _, _, pods := apiwire.RoutePods(r.URL.Path); !pods {
		if !apiwire.ServeDiscovery(w, r) {
			apiwire.NotFound().Write(w)
		}
		return
	}
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the model only lists and watches")
		return
	}
	opts, st := apiwire.ParsePods(r.URL.Path, r.URL.Query())
	if st != nil {
		st.Write(w)
		return
	}
	kind := "list"
	if opts.Watch {
		kind = "watch"
	}
	uri := r.URL.RequestURI()
	if s.answerWarmingUp(w, uri) {
		return
	}
	f, faulty := s.pick(kind, uri)
	if faulty {
		s.logf("%s: fault %s", uri, f)
		if s.answerFault(w, r, f) {
			return
		}
	} else {
		s.logf("%s", uri)
	}
	node, err := nodeOf(opts)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	// The server ends a watch at its timeout and any other request after
	// the apiserver's default --request-timeout, faults in progress included.
	timeout := requestTimeout
	if opts.Watch {
		timeout = watchTimeout(opts)
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	req := request{ctx: ctx, s: s, w: w, r: r, opts: opts, ns: opts.Namespace, node: node, out: w}
	if faulty {
		req.out = fault.NewWriter(ctx, w, f)
	}
	if opts.Watch {
		req.watch()
	} else {
		req.list()
	}
}

// answerWarmingUp answers as a server warming up after a restart, if it is.
func (s *Server) answerWarmingUp(w http.ResponseWriter, uri string) bool {
	code, ok := s.warmingUp()
	if !ok {
		return false
	}
	s.logf("%s: warming up: %d", uri, code)
	switch code {
	case http.StatusForbidden:
		writeStatus(w, code, "Forbidden", `pods is forbidden: User "system:node:node-a" cannot list resource "pods" in API group "" at the cluster scope`)
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "1")
		writeStatus(w, code, "TooManyRequests", "the apiserver is shutting down or starting up, please try again")
	default:
		writeStatus(w, code, "ServiceUnavailable", "the server is currently unable to handle the request")
	}
	return true
}

// answerFault handles the faults that replace the whole answer: the model's
// dead and silent connections, which hold the request until the client
// leaves (or a restart drops it), and package fault's whole answers.
func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, f fault.Fault) bool {
	switch f.Kind {
	case Dead:
		<-r.Context().Done()
		return true
	case Silent:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return true
	}
	return fault.Answer(w, f)
}

// nodeOf is the node a request's field selector names: the model honours
// no selector, or one term spec.nodeName=NODE, which is all a kubelet sends.
func nodeOf(opts apiwire.PodsRequest) (string, error) {
	switch {
	case len(opts.FieldSelector) == 0 && opts.LabelSelector == "":
		return "", nil
	case len(opts.FieldSelector) == 1 && opts.LabelSelector == "" &&
		opts.FieldSelector[0].Field == "spec.nodeName" && opts.FieldSelector[0].Op == "=" && opts.FieldSelector[0].Value != "":
		return opts.FieldSelector[0].Value, nil
	}
	return "", fmt.Errorf("the model honours fieldSelector=spec.nodeName=NODE only, not fieldSelector %q labelSelector %q",
		opts.FieldSelector, opts.LabelSelector)
}

// writeStatus answers with the apiserver's Status; a 504 (a resourceVersion
// the server has not reached) tells the client when to try again, as the
// apiserver does.
func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	st := apiwire.Status{Code: code, Reason: reason, Message: message}
	if code == http.StatusGatewayTimeout {
		st.Details = &apiwire.Details{RetryAfterSeconds: 1}
	}
	st.Write(w)
}

func goneMessage(rv, compacted int64) string {
	return fmt.Sprintf("too old resource version: %d (%d)", rv, compacted)
}
