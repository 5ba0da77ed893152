package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/podwatch/podwatch/internal/proxy"
	"github.com/podwatch/podwatch/rest"
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
`

// proxyFlags are the flags of proxy.
type proxyFlags struct {
	conn         connFlags
	listen       string
	acceptRemote bool
	verbosity    int
}

func (e Env) proxyCmd(ctx context.Context, args []string) error {
	c := newCommand("proxy", proxyUsage)
	var f proxyFlags
	f.conn.register(c)
	c.fs.StringVar(&f.listen, "listen", "127.0.0.1:8001", "the `address` to listen on (port 0: any free port)")
	c.fs.BoolVar(&f.acceptRemote, "accept-remote", false, "allow a --listen address that is not loopback (anyone reaching it acts with your credentials)")
	c.fs.IntVar(&f.verbosity, "v", 0, "log `level`: 6 each request the proxy could not forward")
	pos, err := c.parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	log := newLogger(e.Stderr, f.verbosity)
	if err := checkListen(c, f.listen, f.acceptRemote, log); err != nil {
		return err
	}
	cfg, err := f.conn.restConfig(c.name, e)
	if err != nil {
		return err
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	p := proxy.New(proxy.Options{
		Upstream:  client.Host(),
		Transport: client.RoundTripper(),
		ErrorLog: func(cl proxy.Client, r *http.Request, err error) {
			log.printf("podwatch: proxy: %s %s for %s: %s", r.Method, r.URL.Path, cl, oneLine(err.Error()))
		},
	})
	srv, err := startFixtureServer(f.listen, p, false)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	log.printf("podwatch: proxying %s to %s", srv.url(), client.Host().Redacted())
	<-ctx.Done()
	// Closing the server closes every connection, which ends each request's
	// context and so its request upstream; close waits for every handler.
	srv.close()
	p.Wait()
	return nil
}

// checkListen refuses an address others can reach unless acceptRemote, and
// then warns: whoever reaches the proxy acts with the proxy's credentials.
func checkListen(c *command, addr string, acceptRemote bool, log *logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef(c.name, "--listen %q: %v", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	if !acceptRemote {
		return usagef(c.name, "--listen %q is not a loopback address: anyone reaching it would act with your credentials (add --accept-remote to allow it)", addr)
	}
	log.printf("podwatch: warning: --listen %s accepts clients from other hosts, and each acts with your credentials", addr)
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
