package kubeconfig

import (
	"github.com/podwatch/podwatch/rest"
)

// RESTConfig converts c for rest.NewClient. Exec plugin tokens, basic auth and
// impersonation travel in WrapTransport; the token file is re-read by rest.
//
// rest.Config cannot yet carry a proxy or a client-certificate hook, so: a
// cluster with proxy-url is refused with a *ConfigError rather than silently
// connected to directly, and an exec plugin that returns a client certificate
// (rather than a token) is not presented; the server then answers 401.
func (c *ClientConfig) RESTConfig() (rest.Config, error) {
	return rest.Config{
		Host: c.Host,
		TLS: rest.TLSConfig{
			CAFile: c.TLS.CAFile, CAData: c.TLS.CAData,
			CertFile: c.TLS.CertFile, KeyFile: c.TLS.KeyFile,
			CertData: c.TLS.CertData, KeyData: c.TLS.KeyData,
			ServerName: c.TLS.ServerName, Insecure: c.TLS.Insecure,
			GetClientCertificate: c.TLS.GetClientCertificate,
		},
		Proxy:              c.Proxy,
		DisableCompression: c.DisableCompression,
		BearerToken:        c.BearerToken,
		BearerTokenFile:    c.BearerTokenFile,
		UserAgent:          c.UserAgent,
		Timeout:            c.Timeout,
		WrapTransport:      c.WrapTransport,
	}, nil
}
