package kubeconfig

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/term"
)

// ExecIO is what exec credential plugins inherit from this process. The zero
// value is the real process.
type ExecIO struct {
	// Stdin is given to the plugin only when it runs interactively; nil means
	// os.Stdin.
	Stdin io.Reader
	// IsTerminal reports whether Stdin is a terminal a person can answer a
	// prompt on; nil checks whether Stdin is an *os.File on a terminal.
	IsTerminal func() bool
	// Stderr receives the plugin's standard error (its prompts and
	// messages); nil means os.Stderr. Its standard output holds the
	// credential and goes nowhere but the parser.
	Stderr io.Writer
	// Environ is the environment the plugin's env entries are added to; nil
	// means os.Environ.
	Environ func() []string
	// Now tells when a credential expires; nil means time.Now.
	Now func() time.Time
	// Timeout bounds one plugin run; zero means one minute, or ten when the
	// plugin runs interactively (a person may be logging in).
	Timeout time.Duration
}

const (
	defaultExecTimeout     = time.Minute
	interactiveExecTimeout = 10 * time.Minute
	// maxExecOutput bounds what is kept of a plugin's standard output; an
	// ExecCredential is a few kilobytes even with a certificate chain.
	maxExecOutput = 1 << 20
)

// ExecCredentials supplies the credentials of one kubeconfig user's exec
// plugin. It runs the plugin when a request or TLS handshake first needs a
// credential, caches the result until status.expirationTimestamp (forever if
// the plugin gives none), and runs it again when that passes or when the
// server answers 401 to the credential. At most one run is in progress;
// concurrent callers wait for it, each as long as its own context allows.
// It is safe for concurrent use and owns no goroutine between calls.
type ExecCredentials struct {
	user    string
	cfg     ExecConfig
	cluster *execCluster // nil unless provideClusterInfo
	io      ExecIO

	running chan struct{} // holds a token while the plugin runs

	mu      sync.Mutex
	cur     *credential
	closers []func() // close idle connections of wrapped transports
}

// credential is one plugin answer; it is never changed once cached, so a
// pointer identifies which answer a request used.
type credential struct {
	token  string
	cert   *tls.Certificate
	expiry time.Time // zero: does not expire
}

func newExecCredentials(user string, cfg ExecConfig, cluster *execCluster, eio ExecIO) *ExecCredentials {
	cfg.Args = slices.Clone(cfg.Args)
	cfg.Env = slices.Clone(cfg.Env)
	if cfg.InteractiveMode == "" {
		cfg.InteractiveMode = InteractiveIfAvailable
	}
	return &ExecCredentials{user: user, cfg: cfg, cluster: cluster, io: eio, running: make(chan struct{}, 1)}
}

// String names the plugin without its arguments or environment, which may
// hold secrets.
func (e *ExecCredentials) String() string {
	return fmt.Sprintf("exec plugin %q (user %q, %s)", e.cfg.Command, e.user, e.cfg.APIVersion)
}

// Token returns the plugin's current bearer token, running the plugin if
// nothing valid is cached. It is empty when the plugin gives only a client
// certificate. Errors are *ExecError, or ctx's error while waiting.
func (e *ExecCredentials) Token(ctx context.Context) (string, error) {
	c, err := e.get(ctx)
	if err != nil {
		return "", err
	}
	return c.token, nil
}

// GetClientCertificate is a tls.Config hook: it returns the plugin's client
// certificate, running the plugin under the handshake's context if nothing
// valid is cached, or an empty certificate when the plugin gives a token
// only.
func (e *ExecCredentials) GetClientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c, err := e.get(cri.Context())
	if err != nil {
		return nil, err
	}
	if c.cert == nil {
		return &tls.Certificate{}, nil
	}
	return c.cert, nil
}

func (e *ExecCredentials) now() time.Time {
	if e.io.Now != nil {
		return e.io.Now()
	}
	return time.Now()
}

func (e *ExecCredentials) valid(c *credential) bool {
	return c != nil && (c.expiry.IsZero() || e.now().Before(c.expiry))
}

func (e *ExecCredentials) get(ctx context.Context) (*credential, error) {
	e.mu.Lock()
	c := e.cur
	e.mu.Unlock()
	if e.valid(c) {
		return c, nil
	}
	return e.refresh(ctx, nil)
}

// refresh runs the plugin, unless by the time it is this caller's turn another
// caller has cached a valid credential other than stale (the one the server
// refused); then that one is returned.
func (e *ExecCredentials) refresh(ctx context.Context, stale *credential) (*credential, error) {
	select {
	case e.running <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for %v: %w", e, ctx.Err())
	}
	defer func() { <-e.running }()

	e.mu.Lock()
	cur := e.cur
	e.mu.Unlock()
	if cur != stale && e.valid(cur) {
		return cur, nil
	}
	c, err := e.run(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	old := e.cur
	e.cur = c
	closers := slices.Clone(e.closers)
	e.mu.Unlock()
	if old != nil && old.cert != c.cert {
		// Connections made with the old certificate keep its identity;
		// let idle ones go so that new requests handshake with the new one.
		for _, f := range closers {
			f()
		}
	}
	return c, nil
}

func (e *ExecCredentials) fail(reason string, err error) *ExecError {
	return &ExecError{User: e.user, Command: e.cfg.Command, Reason: reason, ExitCode: -1, Err: err}
}

func (e *ExecCredentials) interactive() (bool, error) {
	switch e.cfg.InteractiveMode {
	case InteractiveNever:
		return false, nil
	case InteractiveAlways:
		if !e.isTerminal() {
			return false, e.fail("interactiveMode is Always, but standard input is not a terminal", nil)
		}
		return true, nil
	}
	return e.isTerminal(), nil
}

func (e *ExecCredentials) isTerminal() bool {
	if e.io.IsTerminal != nil {
		return e.io.IsTerminal()
	}
	var in io.Reader = os.Stdin
	if e.io.Stdin != nil {
		in = e.io.Stdin
	}
	f, ok := in.(*os.File)
	return ok && term.IsTerminal(f)
}

// run runs the plugin once and parses what it printed.
func (e *ExecCredentials) run(ctx context.Context) (*credential, error) {
	interactive, err := e.interactive()
	if err != nil {
		return nil, err
	}
	info, err := json.Marshal(execCredential{
		APIVersion: e.cfg.APIVersion,
		Kind:       "ExecCredential",
		Spec:       execSpec{Interactive: interactive, Cluster: e.cluster},
	})
	if err != nil {
		return nil, e.fail("encode KUBERNETES_EXEC_INFO", err)
	}
	timeout := e.io.Timeout
	if timeout == 0 {
		timeout = defaultExecTimeout
		if interactive {
			timeout = interactiveExecTimeout
		}
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(runCtx, e.cfg.Command, e.cfg.Args...)
	cmd.Env = e.environ(info)
	out := &cappedBuffer{max: maxExecOutput}
	cmd.Stdout = out
	cmd.Stderr = e.io.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if interactive {
		cmd.Stdin = e.io.Stdin
		if cmd.Stdin == nil {
			cmd.Stdin = os.Stdin
		}
	}
	// A plugin that leaves a child holding its output open must not keep
	// Wait, and so every request, blocked.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		return nil, e.runError(ctx, runCtx, timeout, err)
	}
	if out.overflow {
		return nil, e.fail(fmt.Sprintf("printed more than %d bytes", maxExecOutput), nil)
	}
	return e.parse(out.buf)
}

func (e *ExecCredentials) environ(info []byte) []string {
	base := e.io.Environ
	if base == nil {
		base = os.Environ
	}
	env := base()
	for _, v := range e.cfg.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	return append(env, "KUBERNETES_EXEC_INFO="+string(info))
}

func (e *ExecCredentials) runError(ctx, runCtx context.Context, timeout time.Duration, err error) error {
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return e.fail("stopped", ctx.Err())
	case runCtx.Err() != nil:
		return e.fail(fmt.Sprintf("did not finish within %v", timeout), runCtx.Err())
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		x := e.fail("command not found", err)
		x.NotFound, x.InstallHint = true, printable(e.cfg.InstallHint)
		return x
	case errors.As(err, &exitErr):
		x := e.fail(fmt.Sprintf("exited with status %d", exitErr.ExitCode()), nil)
		x.ExitCode = exitErr.ExitCode()
		return x
	}
	return e.fail("could not run", err)
}

// parse checks a plugin's output. Messages name what is wrong but never quote
// the output, which holds credentials.
func (e *ExecCredentials) parse(out []byte) (*credential, error) {
	var ec execCredential
	if err := json.Unmarshal(out, &ec); err != nil {
		return nil, e.fail("standard output is not an ExecCredential JSON object", nil)
	}
	switch {
	case ec.APIVersion != e.cfg.APIVersion:
		return nil, e.fail(fmt.Sprintf("printed apiVersion %.64q, want %q", ec.APIVersion, e.cfg.APIVersion), nil)
	case ec.Kind != "ExecCredential":
		return nil, e.fail(fmt.Sprintf("printed kind %.64q, want ExecCredential", ec.Kind), nil)
	case ec.Status == nil:
		return nil, e.fail("printed no status", nil)
	}
	st := ec.Status
	hasCert, hasKey := st.ClientCertificateData != "", st.ClientKeyData != ""
	switch {
	case st.Token == "" && !hasCert && !hasKey:
		return nil, e.fail("status has neither a token nor a client certificate", nil)
	case hasCert && !hasKey:
		return nil, e.fail("status has clientCertificateData without clientKeyData", nil)
	case hasKey && !hasCert:
		return nil, e.fail("status has clientKeyData without clientCertificateData", nil)
	}
	c := &credential{token: st.Token}
	if st.ExpirationTimestamp != nil {
		c.expiry = *st.ExpirationTimestamp
	}
	if hasCert {
		cert, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, e.fail("status.clientCertificateData and clientKeyData are not a usable key pair", err)
		}
		c.cert = &cert
	}
	return c, nil
}

// WrapTransport returns a RoundTripper that sends the plugin's token as
// "Authorization: Bearer", unless the request already has an Authorization
// header. On a 401 answer it runs the plugin again (once per refused
// credential, however many requests saw the 401) and, when the request's body
// can be sent again (none, or GetBody set), retries it once with the new
// credential: a 401 means the server did not act on the request. A request
// whose body cannot be replayed gets the 401 answer, and the next request the
// new credential. If the plugin fails, the error is returned (an *ExecError)
// and the response is closed.
func (e *ExecCredentials) WrapTransport(base http.RoundTripper) http.RoundTripper {
	e.mu.Lock()
	e.closers = append(e.closers, func() { closeIdle(base) })
	e.mu.Unlock()
	return &execTransport{e: e, base: base}
}

// cappedBuffer keeps the first max bytes written and notes the rest.
type cappedBuffer struct {
	buf      []byte
	max      int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - len(b.buf); n > room {
		b.overflow = true
		p = p[:room]
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// printable drops control characters from text a kubeconfig wants shown on
// a terminal, so that a hint cannot move the cursor or restyle the screen.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || (r >= ' ' && r != 0x7f && !(r >= 0x80 && r < 0xa0)) {
			return r
		}
		return -1
	}, s)
}
