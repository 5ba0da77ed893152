package proxycmd

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/proxy"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

const proxyUsage = `Usage: podwatch proxy [--listen HOST:PORT] [connection flags as watch]

Forwards every request of any client (kubectl, a kubelet, an informer) to the
cluster of the kubeconfig (or --server), authenticating with the kubeconfig's
credentials as 'kubectl proxy' does; point the client at
http://HOST:PORT. Responses stream back as they arrive, read by read: a
watch is never buffered whole nor cut by a timeout, and HTTP/2 is spoken to
the server when it offers it. A client that stops reading holds back the
read from the server (one buffer per stream at most).

A client's own Authorization header is never forwarded, and the proxy's
credentials appear in no output. A request that cannot be forwarded gets a
Kubernetes Status (503), never a hang. Ctrl-C ends every stream (exit 0).

--listen defaults to 127.0.0.1:8001. Anyone who reaches the address acts
with the kubeconfig's credentials, so an address that is not loopback is
refused unless --accept-remote is given (it then warns).

--trace (and --trace-file, --trace-format json, --trace-html) narrates every
client's requests as 'watch --trace' narrates podwatch's own: each request's
parameters explained, responses, reads, HTTP/2 frames, events in every
format, each step naming its client (a User-Agent from one remote host; one
lane each in the HTML timeline). It cannot see a client's reflector, so it
tells what the requests reveal: a relist (a list or watch list after a
watch) and the resourceVersion it asks, a resume (a watch again from a
resourceVersion), the time between watch lists, and a backoff (the gap
after a failed request). Once a relist's state has come whole, it tells what
that state shows the client missed (pods deleted without their DELETED
reaching it, pods whose resourceVersion jumped), and a watch silent past
--stall-after with its verdict. With --diff it tells under each MODIFIED
event what changed against that client's previous version of the object
(--diff=all: metadata.managedFields and resourceVersion too).

--record DIR keeps each client's exchanges as a fixture,
DIR/<client>/recording.json (client: its host and User-Agent), written
atomically when the proxy stops; 'podwatch serve DIR/<client>' replays it
to that client. --record-filter /api/v1/pods keeps only those paths.
No credential reaches a recording.

--tls serves HTTPS, HTTP/2 included, with a certificate made for the run
(--ca-out FILE saves it); --kubeconfig-out FILE writes a kubeconfig a client
can use at once (kubectl --kubeconfig FILE get pods).
`

// proxyFlags are the flags of proxy.
type proxyFlags struct {
	conn         base.ConnFlags
	listen       string
	acceptRemote bool
	verbosity    int
	trace        base.TraceFlags
	record       string
	recordFilter base.StringList
	tls          bool
	caOut        string
	kubeconfig   string // --kubeconfig-out
}

// Run runs podwatch proxy with args, those after the command's name.
func Run(ctx context.Context, e base.Env, args []string) error {
	c := base.NewCommand("proxy", proxyUsage)
	var f proxyFlags
	f.register(c)
	pos, err := c.Parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return base.Usagef(c.Name, "unexpected argument %q", pos[0])
	}
	if err := f.check(c); err != nil {
		return err
	}
	log := base.NewLogger(e.Stderr, f.verbosity).WrapAt(e.StderrWidth())
	if err := checkListen(c, f.listen, f.acceptRemote, log); err != nil {
		return err
	}
	cfg, err := f.conn.RESTConfig(c.Name, e)
	if err != nil {
		return err
	}
	tr, closeTrace, err := f.trace.Open(e, log)
	if err != nil {
		return err
	}
	// The trace sits in the upstream transport, beneath the credentials it
	// masks, as in watch; each client's layer names the client to it.
	trace.NewInstrument[*api.Pod](tr).Configure(&cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		return errors.Join(err, closeTrace())
	}
	defer client.CloseIdleConnections()
	if tr != nil {
		tr.Begin(client.Host().Redacted(), "every client's requests, forwarded by podwatch proxy")
	}
	var rec *proxyRecorder
	if f.record != "" {
		rec = &proxyRecorder{dir: f.record, filter: f.recordFilter}
	}
	err = f.serve(ctx, log, newProxy(client, tr, rec, log))
	if rec != nil {
		err = errors.Join(err, rec.save(log))
	}
	traceErr := closeTrace()
	if traceErr == nil {
		f.trace.Written(log)
	}
	return errors.Join(err, traceErr)
}

func (f *proxyFlags) register(c *base.Command) {
	fs := c.Flags
	f.conn.Register(c)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8001", "the `address` to listen on (port 0: any free port)")
	fs.BoolVar(&f.acceptRemote, "accept-remote", false, "allow a --listen address that is not loopback (anyone reaching it acts with your credentials)")
	fs.IntVar(&f.verbosity, "v", 0, "log `level`: 6 each request with its status and time (requests that cannot be forwarded are always logged)")
	f.trace.Register(c)
	f.trace.Proxy = true
	fs.StringVar(&f.record, "record", "", "record each client's exchanges as a fixture, `DIR`/<client>/recording.json, written when the proxy stops")
	fs.Var(&f.recordFilter, "record-filter", "with --record: record only requests whose path is this `prefix` or under it, such as /api/v1/pods (repeatable)")
	fs.BoolVar(&f.tls, "tls", false, "serve HTTPS (HTTP/2 and HTTP/1.1) with a certificate made for the run")
	fs.StringVar(&f.caOut, "ca-out", "", "with --tls: write the certificate to trust (the run's CA) to this `file`")
	fs.StringVar(&f.kubeconfig, "kubeconfig-out", "", "write a kubeconfig for clients of the proxy to this `file` (no credential in it: the proxy adds its own)")
}

func (f *proxyFlags) check(c *base.Command) error {
	if err := f.trace.Check(c); err != nil {
		return err
	}
	if f.trace.Diff.On() && !f.trace.Enabled() {
		return base.Usagef(c.Name, "--diff shows in the trace: add --trace, --trace-file or --trace-html")
	}
	if len(f.recordFilter) > 0 && f.record == "" {
		return base.Usagef(c.Name, "--record-filter applies to --record")
	}
	if f.caOut != "" && !f.tls {
		return base.Usagef(c.Name, "--ca-out applies to --tls")
	}
	return nil
}

// newProxy forwards through client, each client of the proxy recorded by
// rec and named to tr (either may be nil).
func newProxy(client *rest.Client, tr *trace.Tracer, rec *proxyRecorder, log *base.Logger) *proxy.Proxy {
	return proxy.New(proxy.Options{
		Upstream:  client.Host(),
		Transport: resthook.Forwarder(client),
		ForClient: func(cl proxy.Client, next http.RoundTripper) http.RoundTripper {
			if rec != nil {
				next = rec.wrap(cl, next)
			}
			if tr != nil {
				next = namedClient{name: cl.String(), next: next}
			}
			return next
		},
		ErrorLog: func(cl proxy.Client, r *http.Request, err error) {
			log.Printf("podwatch: proxy: %s %s for %s: %s", r.Method, r.URL.Path, cl, base.OneLine(err.Error()))
		},
	})
}

// serve serves p on --listen until ctx ends, then ends every stream and
// returns once every request has.
func (f *proxyFlags) serve(ctx context.Context, log *base.Logger, p *proxy.Proxy) error {
	var h http.Handler = p
	if log.V(base.VerboseRequests) {
		h = base.LogRequests(log, h)
	}
	srv, err := base.StartServer(f.listen, h, f.tls)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	if err := f.writeClientFiles(srv, log); err != nil {
		srv.Close()
		return err
	}
	log.Printf("podwatch: proxying %s to %s", srv.URL(), p.Upstream().Redacted())
	<-ctx.Done()
	// Closing the server closes every connection, which ends each request's
	// context and so its request upstream; close waits for every handler.
	srv.Close()
	p.Wait()
	return nil
}

// writeClientFiles writes what a client needs to reach the proxy: the CA
// of its certificate (--ca-out) and a kubeconfig (--kubeconfig-out), with
// no credential (a placeholder token): the proxy sends its own upstream.
func (f *proxyFlags) writeClientFiles(srv *base.Server, log *base.Logger) error {
	if f.caOut != "" {
		if err := os.WriteFile(f.caOut, srv.CA(), 0o644); err != nil {
			return fmt.Errorf("proxy: --ca-out: %w", err)
		}
		log.Printf("podwatch: the proxy's certificate is in %s", f.caOut)
	}
	if f.kubeconfig == "" {
		return nil
	}
	cluster := map[string]any{"server": srv.URL()}
	if srv.CA() != nil {
		cluster["certificate-authority-data"] = base64.StdEncoding.EncodeToString(srv.CA())
	}
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": "podwatch-proxy",
		"clusters":        []any{map[string]any{"name": "podwatch-proxy", "cluster": cluster}},
		// A placeholder token, not a credential: with none kubectl asks
		// for a password over https. The proxy drops it, as it drops any
		// client's Authorization.
		"users": []any{map[string]any{"name": "podwatch-proxy", "user": map[string]any{"token": proxyPlaceholderToken}}},
		"contexts": []any{map[string]any{"name": "podwatch-proxy",
			"context": map[string]any{"cluster": "podwatch-proxy", "user": "podwatch-proxy"}}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ") // JSON is YAML: every kubeconfig reader takes it
	if err != nil {
		return fmt.Errorf("proxy: --kubeconfig-out: %w", err)
	}
	if err := os.WriteFile(f.kubeconfig, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("proxy: --kubeconfig-out: %w", err)
	}
	log.Printf("podwatch: a kubeconfig for the proxy's clients is in %s", f.kubeconfig)
	return nil
}

// proxyPlaceholderToken is the token of --kubeconfig-out's user.
const proxyPlaceholderToken = "podwatch-proxy-sends-its-own-credentials"

// namedClient tells the trace whose requests go through it.
type namedClient struct {
	name string
	next http.RoundTripper
}

func (n namedClient) RoundTrip(req *http.Request) (*http.Response, error) {
	return n.next.RoundTrip(req.WithContext(trace.WithClient(req.Context(), n.name)))
}

// checkListen refuses an address others can reach unless acceptRemote, and
// then warns: whoever reaches the proxy acts with the proxy's credentials.
func checkListen(c *base.Command, addr string, acceptRemote bool, log *base.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return base.Usagef(c.Name, "--listen %q: %v", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	if !acceptRemote {
		return base.Usagef(c.Name, "--listen %q is not a loopback address: anyone reaching it would act with your credentials (add --accept-remote to allow it)", addr)
	}
	log.Warnf("--listen %s accepts clients from other hosts, and each acts with your credentials", addr)
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
