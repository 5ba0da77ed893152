package kubeconfig

import (
	"github.com/podwatch/podwatch/rest"
)

// RESTConfig converts c for rest.NewClient. Exec plugin tokens, basic auth and
// impersonation travel in WrapTransport; the token file is re-read by rest.
// The cluster's proxy-url (else the environment's HTTPS_PROXY and NO_PROXY)
// travels in Proxy, and a client certificate an exec plugin returns in
// TLS.GetClientCertificate, which rest presents at each TLS handshake in
// preference to a certificate from files or data.
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
