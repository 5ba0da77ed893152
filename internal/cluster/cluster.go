package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Options configures Start. The zero value works.
type Options struct {
	// BinDir holds the etcd and kube-apiserver binaries; empty means
	// DefaultBinDir. Start builds them there first if they are missing.
	BinDir string
	// WatchCache sets --watch-cache; nil keeps the apiserver's default (on).
	// With it off, watches are served by etcd directly, so a watch from a
	// compacted revision gets 410 without an apiserver restart.
	WatchCache *bool
	// FeatureGates switches the apiserver's feature gates, by name, with
	// --feature-gates; nil keeps the defaults. The CBOR tests turn on the
	// alpha CBORServingAndStorage gate with it.
	FeatureGates map[string]bool
	// ExtraAPIServerArgs are appended to the apiserver's flags; a flag given
	// here wins over the harness's own value for it.
	ExtraAPIServerArgs []string
	// Log, when set, also receives both processes' output as it is written.
	Log io.Writer
	// ReadyTimeout bounds each wait for a process to become ready; zero
	// means 90 s, generous because the machine may be busy compiling.
	ReadyTimeout time.Duration
}

// How long a stop waits after SIGTERM before SIGKILL. The apiserver ends
// its watches after --shutdown-watch-termination-grace-period (set to
// watchDrain) and then exits within about a second; more is a hang. etcd
// with the apiserver still connected spends about 7 s in its graceful stop
// for nothing the tests need; its data survives a SIGKILL because a killed
// process loses nothing the kernel already has (only --unsafe-no-fsync's
// machine crash would).
const (
	APIServerStopGrace = 10 * time.Second
	EtcdStopGrace      = 2 * time.Second
	watchDrain         = 2 * time.Second
)

// Cluster is a running etcd and kube-apiserver on loopback. Its methods are
// safe for concurrent use, but stopping and starting the processes while
// another goroutine does the same is a test bug the harness does not
// untangle. Close stops both and removes the data folder.
type Cluster struct {
	// URL is the apiserver's base URL, https://127.0.0.1:PORT. It stays the
	// same across apiserver restarts.
	URL string
	// CAData is the PEM CA that signed the serving certificate.
	CAData []byte
	// AdminToken is a bearer token for AdminUser, in group system:masters.
	AdminToken string
	// NodeToken is a bearer token for NodeUser, allowed by RBAC to get,
	// list and watch pods and nothing else.
	NodeToken string
	// NoRBACToken is a bearer token for NoRBACUser, which has no bindings.
	NoRBACToken string
	// EtcdURL is etcd's client URL, http://127.0.0.1:PORT.
	EtcdURL string
	// Dir is the cluster's data folder (certificates, tokens, etcd data).
	Dir string

	opts      Options
	binDir    string
	creds     *credentials
	tlsConfig *tls.Config
	apiPort   int
	peerURL   string
	admin     *http.Client // verifies TLS, sends AdminToken
	plain     *http.Client // for etcd's JSON gateway and readiness probes

	apiLog  tailBuffer
	etcdLog tailBuffer

	mu        sync.Mutex
	apiserver *process // nil while stopped
	frozen    bool     // the apiserver is stopped with SIGSTOP (freeze.go)
	etcd      *process // nil while stopped
	closed    bool
}

const logTail = 256 << 10

// Start builds the binaries if needed (see EnsureBinaries), then starts
// etcd and kube-apiserver on free loopback ports with a fresh data folder,
// waits until the apiserver's /readyz answers ok, and creates the RBAC
// grant for NodeUser. It blocks until all that is done or ctx ends. On
// error nothing is left running and the error says why: a *BuildError, a
// *ProcessError with the log tail, or a wrapped context error. The caller
// owns the returned Cluster and must Close it.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 90 * time.Second
	}
	binDir := opts.BinDir
	if binDir == "" {
		d, err := DefaultBinDir()
		if err != nil {
			return nil, err
		}
		binDir = d
	}
	if err := EnsureBinaries(ctx, binDir); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "podwatch-cluster-")
	if err != nil {
		return nil, fmt.Errorf("cluster: make data folder: %w", err)
	}
	c, err := newCluster(dir, binDir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.boot(ctx); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

func newCluster(dir, binDir string, opts Options) (*Cluster, error) {
	creds, err := writeCredentials(dir)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(creds.caPEM) {
		return nil, errors.New("cluster: parse own CA")
	}
	c := &Cluster{
		URL:         "https://127.0.0.1:" + strconv.Itoa(ports[0]),
		CAData:      creds.caPEM,
		AdminToken:  creds.adminToken,
		NodeToken:   creds.nodeToken,
		NoRBACToken: creds.noRBACToken,
		EtcdURL:     "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		Dir:         dir,
		opts:        opts,
		binDir:      binDir,
		creds:       creds,
		tlsConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		apiPort:     ports[0],
		peerURL:     "http://127.0.0.1:" + strconv.Itoa(ports[2]),
		plain:       &http.Client{Timeout: 10 * time.Second},
	}
	c.apiLog.max = logTail
	c.etcdLog.max = logTail
	c.admin = c.Client(c.AdminToken)
	return c, nil
}

func (c *Cluster) boot(ctx context.Context) error {
	if err := c.StartEtcd(ctx); err != nil {
		return err
	}
	if err := c.StartAPIServer(ctx); err != nil {
		return err
	}
	return c.grantNodeUser(ctx)
}

// freePorts asks the kernel for n distinct free loopback ports. They are
// released before the processes bind them, a small race that tests on one
// machine accept.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("cluster: find free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Client returns an HTTP client that verifies the apiserver's certificate
// against CAData, speaks HTTP/2 and sends token as a bearer token (none if
// empty). It sets no Client.Timeout, so it is fit for watches: bound
// requests with their context.
func (c *Cluster) Client(token string) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:   c.tlsConfig.Clone(),
		ForceAttemptHTTP2: true, // a custom TLS config turns HTTP/2 off otherwise
		Proxy:             nil,
	}
	var rt http.RoundTripper = tr
	if token != "" {
		rt = bearer{token: token, next: tr}
	}
	return &http.Client{Transport: rt}
}

// TLSConfig returns a fresh copy of a TLS config that verifies the
// apiserver against CAData.
func (c *Cluster) TLSConfig() *tls.Config { return c.tlsConfig.Clone() }

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// Logs returns the tails of both processes' output, for printing when a
// test fails. It is safe to call at any time, also after Close.
func (c *Cluster) Logs() string {
	return fmt.Sprintf("===== kube-apiserver log tail =====\n%s\n===== etcd log tail =====\n%s",
		c.apiLog.String(), c.etcdLog.String())
}

// Close stops the apiserver, then etcd (an apiserver whose etcd is gone
// first can hang in its shutdown), and removes the data folder. It blocks
// until both processes have ended. Calling it again does nothing.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := errors.Join(c.StopAPIServer(), c.StopEtcd())
	c.admin.CloseIdleConnections()
	if rmErr := os.RemoveAll(c.Dir); rmErr != nil {
		err = errors.Join(err, fmt.Errorf("cluster: remove data folder: %w", rmErr))
	}
	return err
}

func (c *Cluster) logWriter(buf *tailBuffer) io.Writer {
	if c.opts.Log == nil {
		return buf
	}
	return tee{keep: buf, also: c.opts.Log}
}

// tee copies output to Options.Log but ignores its errors: a failing log
// sink must not stop the copy and so block the process on a full pipe.
type tee struct {
	keep *tailBuffer
	also io.Writer
}

func (t tee) Write(p []byte) (int, error) {
	t.also.Write(p)
	return t.keep.Write(p)
}

func (c *Cluster) etcdDataDir() string { return filepath.Join(c.Dir, "etcd") }
