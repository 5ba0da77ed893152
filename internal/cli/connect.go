package cli

import (
	"fmt"
	"net/http"
	"runtime"
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
		ClientCertificate:     f.clientCertificate,
		ClientKey:             f.clientKey,
		Impersonate:           f.as,
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

func userAgent() string {
	return fmt.Sprintf("podwatch/%s (%s/%s)", version(), runtime.GOOS, runtime.GOARCH)
}
