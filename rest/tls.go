package rest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// build turns t into a tls.Config; a nil result with no error means the
// transport's defaults (system roots, no client certificate).
func (t *TLSConfig) build() (*tls.Config, error) {
	hasCA := t.CAFile != "" || len(t.CAData) > 0
	if t.Insecure && hasCA {
		return nil, fmt.Errorf("rest: TLS: a CA cannot be combined with Insecure")
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.Insecure,
	}
	if hasCA {
		pool, err := t.caPool()
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if err := t.setClientCert(cfg); err != nil {
		return nil, err
	}
	if t.GetClientCertificate != nil {
		// The hook (an exec plugin's) wins over any pair set beside it.
		cfg.GetClientCertificate = t.GetClientCertificate
	}
	return cfg, nil
}

// setClientCert puts the client certificate, if any, into cfg: a pair from
// files through a hook that picks up their rotation, inline data as is.
func (t *TLSConfig) setClientCert(cfg *tls.Config) error {
	if t.certFromFiles() {
		files, err := newCertFiles(t.CertFile, t.KeyFile)
		if err != nil {
			return err
		}
		cfg.GetClientCertificate = files.GetClientCertificate
		return nil
	}
	cert, err := t.clientCert()
	if err != nil {
		return err
	}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return nil
}

// certFromFiles reports whether the client certificate and its key both come
// from files, which may then be rotated under a running client.
func (t *TLSConfig) certFromFiles() bool {
	return t.CertFile != "" && t.KeyFile != "" && len(t.CertData) == 0 && len(t.KeyData) == 0
}

func (t *TLSConfig) caPool() (*x509.CertPool, error) {
	data, from, err := pick(t.CAData, t.CAFile, "CA")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("rest: TLS: %s holds no PEM certificate", from)
	}
	return pool, nil
}

func (t *TLSConfig) clientCert() (*tls.Certificate, error) {
	hasCert := t.CertFile != "" || len(t.CertData) > 0
	hasKey := t.KeyFile != "" || len(t.KeyData) > 0
	if !hasCert && !hasKey {
		return nil, nil
	}
	if hasCert != hasKey {
		return nil, fmt.Errorf("rest: TLS: a client certificate needs both a certificate and a key")
	}
	certPEM, certFrom, err := pick(t.CertData, t.CertFile, "client certificate")
	if err != nil {
		return nil, err
	}
	keyPEM, keyFrom, err := pick(t.KeyData, t.KeyFile, "client key")
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("rest: TLS: client certificate %s with key %s: %w", certFrom, keyFrom, err)
	}
	return &cert, nil
}

// pick returns inline data when there is any, else the file's content, and a name
// for where it came from to put in errors.
func pick(data []byte, file, what string) ([]byte, string, error) {
	if len(data) > 0 {
		return data, "inline " + what + " data", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("rest: TLS: read %s file: %w", what, err)
	}
	return b, what + " file " + file, nil
}
