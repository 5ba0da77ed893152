package cli

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

// layer wraps a RoundTripper.
type layer = func(http.RoundTripper) http.RoundTripper

// restConfig resolves the kubeconfig and kubectl's flags into a rest.Config.
func (f *connFlags) restConfig(cmd string, e Env) (rest.Config, error) {
	timeout, err := kubeconfig.ParseTimeout(f.requestTimeout)
	if err != nil {
		return rest.Config{}, usagef(cmd, "--request-timeout %q: %v", f.requestTimeout, err)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"http2-read-idle-timeout", f.http2ReadIdle}, {"http2-ping-timeout", f.http2Ping}} {
		if d.v <= 0 {
			return rest.Config{}, usagef(cmd, "--%s %v: must be positive", d.name, d.v)
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
	warnConnection(e.Stderr, cc, f.configuredUser)
	cfg.DisableHTTP2 = f.disableHTTP2
	cfg.HTTP2ReadIdleTimeout, cfg.HTTP2PingTimeout = f.http2ReadIdle, f.http2Ping
	if cfg.UserAgent == "" {
		cfg.UserAgent = userAgent()
	}
	return cfg, nil
}

// addLayers puts inner (first = closest to the network) beneath whatever
// cfg.WrapTransport already adds (the kubeconfig's credentials), so that the
// trace and the recorder see requests as they are finally sent.
func addLayers(cfg *rest.Config, inner ...layer) {
	outer := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		for _, l := range inner {
			if l != nil {
				rt = l(rt)
			}
		}
		if outer != nil {
			rt = outer(rt)
		}
		return rt
	}
}

// warnConnection says on w, one line each, what the connection cc describes
// gives away or leaves out: a server whose certificate is not checked, or
// credentials configured for a plain-http server (kubeconfig then sends none,
// as kubectl does: they would travel in clear). configured gives the
// credentials as configured, flags applied; it is asked only for a
// plain-http server. It names the kind of credential, never its value.
func warnConnection(w io.Writer, cc *kubeconfig.ClientConfig, configured func(*kubeconfig.ClientConfig) kubeconfig.User) {
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
			fmt.Fprintf(w, "podwatch: warning: TLS verification is off (insecure-skip-tls-verify): the certificate of %s is not checked, so anyone on the way can pose as it\n", server)
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
		says = append(says, strings.Join(inClear, " and ")+plural(len(inClear), " is not sent, as it", " are not sent, as they")+" would travel in clear")
	}
	if user.ClientCertificate != "" || len(user.ClientCertificateData) > 0 {
		says = append(says, "the client certificate cannot be used without TLS")
	}
	if len(says) > 0 {
		fmt.Fprintf(w, "podwatch: warning: %s is plain http, not https: %s\n", server, strings.Join(says, "; "))
	}
}

// configuredUser is the kubeconfig user cc was resolved with, with the
// credential flags applied as kubeconfig applies them. A kubeconfig that
// cannot be read again gives the flags alone.
func (f *connFlags) configuredUser(cc *kubeconfig.ClientConfig) kubeconfig.User {
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func userAgent() string {
	return fmt.Sprintf("podwatch/%s (%s/%s)", version(), runtime.GOOS, runtime.GOARCH)
}
