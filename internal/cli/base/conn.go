package base

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/kubeconfig"
	"github.com/podwatch/podwatch/rest"
)

// ConnFlags are kubectl's connection flags.
type ConnFlags struct {
	kubeconfig, context, cluster, user string
	server, token                      string
	certificateAuthority               string
	clientCertificate, clientKey       string
	tlsServerName                      string
	as, asUID                          string
	asGroups                           StringList
	requestTimeout                     string
	insecure                           bool
	http2ReadIdle, http2Ping           time.Duration
	disableHTTP2                       bool
}

// Register defines the flags on c, kubectl's names and -s for --server.
func (f *ConnFlags) Register(c *Command) {
	fs := c.Flags
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig `file` (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig `context` to use")
	fs.StringVar(&f.cluster, "cluster", "", "the kubeconfig `cluster` to use")
	fs.StringVar(&f.user, "user", "", "the kubeconfig `user` to use")
	fs.StringVar(&f.server, "server", "", "the apiserver's `URL`")
	c.Alias("s", "server")
	fs.StringVar(&f.token, "token", "", "a bearer `token` (never printed)")
	fs.StringVar(&f.certificateAuthority, "certificate-authority", "", "a PEM `file` of the CAs to trust")
	fs.StringVar(&f.clientCertificate, "client-certificate", "", "a PEM client certificate `file`")
	fs.StringVar(&f.clientKey, "client-key", "", "the client certificate's key `file`")
	fs.StringVar(&f.tlsServerName, "tls-server-name", "", "check the server's certificate against this `name` instead of the host's")
	fs.StringVar(&f.as, "as", "", "impersonate this `user`")
	fs.StringVar(&f.asUID, "as-uid", "", "impersonate this user `UID` (with --as)")
	fs.Var(&f.asGroups, "as-group", "impersonate this `group` (repeatable)")
	fs.StringVar(&f.requestTimeout, "request-timeout", "0", "bound every request but a watch's body (`duration` or seconds; 0 for none)")
	fs.BoolVar(&f.insecure, "insecure-skip-tls-verify", false, "do not check the server's certificate (insecure)")
	fs.DurationVar(&f.http2ReadIdle, "http2-read-idle-timeout", 30*time.Second, "ping an HTTP/2 connection silent this long (`duration`)")
	fs.DurationVar(&f.http2Ping, "http2-ping-timeout", 15*time.Second, "close an HTTP/2 connection, and its watches, whose ping goes unanswered this long (`duration`)")
	fs.BoolVar(&f.disableHTTP2, "disable-http2", false, "speak HTTP/1.1 only (a watch silent past its timeout plus 30s is then ended and resumed)")
}

// Given reports whether any connection flag was set.
func (f *ConnFlags) Given(c *Command) bool {
	for _, n := range []string{"kubeconfig", "context", "cluster", "user", "server", "token",
		"certificate-authority", "client-certificate", "client-key", "as", "as-uid", "as-group",
		"insecure-skip-tls-verify", "tls-server-name"} {
		if c.Set(n) {
			return true
		}
	}
	return false
}

// Layer wraps a RoundTripper.
type Layer = func(http.RoundTripper) http.RoundTripper

// RoundTripFunc is a function that is an http.RoundTripper.
type RoundTripFunc func(*http.Request) (*http.Response, error)

func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RESTConfig resolves the kubeconfig and kubectl's flags into a rest.Config
// for the command cmd.
func (f *ConnFlags) RESTConfig(cmd string, e Env) (rest.Config, error) {
	timeout, err := kubeconfig.ParseTimeout(f.requestTimeout)
	if err != nil {
		return rest.Config{}, Usagef(cmd, "--request-timeout %q: %v", f.requestTimeout, err)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"http2-read-idle-timeout", f.http2ReadIdle}, {"http2-ping-timeout", f.http2Ping}} {
		if d.v <= 0 {
			return rest.Config{}, Usagef(cmd, "--%s %v: must be positive", d.name, d.v)
		}
	}
	cc, err := kubeconfig.New(kubeconfig.DefaultRules(f.kubeconfig), kubeconfig.Options{
		Context:               f.context,
		Cluster:               f.cluster,
		User:                  f.user,
		Server:                f.server,
		Token:                 f.token,
		CertificateAuthority:  f.certificateAuthority,
		InsecureSkipTLSVerify: f.insecure,
		TLSServerName:         f.tlsServerName,
		ClientCertificate:     f.clientCertificate,
		ClientKey:             f.clientKey,
		Impersonate:           f.as,
		ImpersonateUID:        f.asUID,
		ImpersonateGroups:     f.asGroups,
		Timeout:               timeout,
		Exec:                  kubeconfig.ExecIO{Stderr: e.Stderr},
	})
	if err != nil {
		return rest.Config{}, err
	}
	cfg, err := cc.RESTConfig()
	if err != nil {
		return rest.Config{}, err
	}
	warnConnection(e.Stderr, e.StderrWidth(), cc, f.configuredUser)
	cfg.DisableHTTP2 = f.disableHTTP2
	cfg.HTTP2ReadIdleTimeout, cfg.HTTP2PingTimeout = f.http2ReadIdle, f.http2Ping
	if cfg.UserAgent == "" {
		cfg.UserAgent = UserAgent()
	}
	return cfg, nil
}

// warnConnection says on w, one line each (wrapped at width), what the connection cc describes
// gives away or leaves out: a server whose certificate is not checked, or
// credentials configured for a plain-http server (kubeconfig then sends none,
// as kubectl does: they would travel in clear). configured gives the
// credentials as configured, flags applied; it is asked only for a
// plain-http server. It names the kind of credential, never its value.
func warnConnection(w io.Writer, width int, cc *kubeconfig.ClientConfig, configured func(*kubeconfig.ClientConfig) kubeconfig.User) {
	host := cc.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host // as rest.NewClient reads it
	}
	u, err := url.Parse(host)
	if err != nil {
		return // rest.NewClient reports a bad host
	}
	server := u.Scheme + "://" + u.Host
	if u.Scheme != "http" {
		if cc.TLS.Insecure {
			warn(w, width, "TLS verification is off (insecure-skip-tls-verify): the certificate of "+server+" is not checked, so anyone on the way can pose as it")
		}
		return
	}
	user := configured(cc)
	var inClear []string
	if user.Token != "" || user.TokenFile != "" {
		inClear = append(inClear, "the bearer token")
	}
	if user.Username != "" || user.Password != "" {
		inClear = append(inClear, "the basic-auth password")
	}
	if user.Exec != nil {
		inClear = append(inClear, "the exec plugin's credential")
	}
	var says []string
	if len(inClear) > 0 {
		says = append(says, strings.Join(inClear, " and ")+Plural(len(inClear), " is not sent, as it", " are not sent, as they")+" would travel in clear")
	}
	if user.ClientCertificate != "" || len(user.ClientCertificateData) > 0 {
		says = append(says, "the client certificate cannot be used without TLS")
	}
	if len(says) > 0 {
		warn(w, width, server+" is plain http, not https: "+strings.Join(says, "; "))
	}
}

// warn writes a warning on w as Logger.Warnf does, for the warnings told
// before a command has its logger.
func warn(w io.Writer, width int, msg string) {
	fmt.Fprintln(w, Fold("podwatch: ", "warning: "+msg, width))
}

// configuredUser is the kubeconfig user cc was resolved with, with the
// credential flags applied as kubeconfig applies them. A kubeconfig that
// cannot be read again gives the flags alone.
func (f *ConnFlags) configuredUser(cc *kubeconfig.ClientConfig) kubeconfig.User {
	var u kubeconfig.User
	if cfg, err := kubeconfig.Load(kubeconfig.DefaultRules(f.kubeconfig)); err == nil && cfg.Users[cc.User] != nil {
		u = *cfg.Users[cc.User]
	}
	if f.token != "" {
		u.Token, u.TokenFile, u.Exec = f.token, "", nil
	}
	if f.clientCertificate != "" {
		u.ClientCertificate, u.ClientCertificateData = f.clientCertificate, nil
	}
	return u
}

// UserAgent is podwatch's, unless the kubeconfig names one.
func UserAgent() string {
	return fmt.Sprintf("podwatch/%s (%s/%s)", Release(), runtime.GOOS, runtime.GOARCH)
}
