package kubeconfig

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

func checkCluster(name string, cl *Cluster) error {
	bad := func(field, reason string, err error) error {
		return &ConfigError{Kind: "cluster", Name: name, Field: field, Reason: reason, Err: err}
	}
	if _, err := normalizeServer(cl.Server, false); err != nil {
		return bad("server", "not a URL", err)
	}
	if cl.ProxyURL != "" {
		if _, err := parseProxyURL(cl.ProxyURL); err != nil {
			return bad("proxy-url", "unusable", err)
		}
	}
	if cl.CertificateAuthority != "" && len(cl.CertificateAuthorityData) > 0 {
		return bad("certificate-authority", "set together with certificate-authority-data; keep one", nil)
	}
	hasCA := cl.CertificateAuthority != "" || len(cl.CertificateAuthorityData) > 0
	if hasCA && cl.InsecureSkipTLSVerify {
		return bad("insecure-skip-tls-verify", "set together with a certificate authority; keep one", nil)
	}
	if cl.CertificateAuthority != "" {
		if err := checkReadable(cl.CertificateAuthority); err != nil {
			return bad("certificate-authority", "cannot be read", err)
		}
	}
	return nil
}

func checkUser(name string, u *User) error {
	bad := func(field, reason string, err error) error {
		return &ConfigError{Kind: "user", Name: name, Field: field, Reason: reason, Err: err}
	}
	if u.AuthProvider != nil {
		return &AuthProviderError{User: name, Provider: u.AuthProvider.Name, Origin: u.Origin}
	}
	// The Authorization header carries one credential: a token, basic auth or
	// a plugin's token. A client certificate travels in TLS, so it may go
	// with a token or basic auth, but not with a plugin, which may bring its
	// own certificate.
	var methods []string
	if u.Token != "" || u.TokenFile != "" {
		methods = append(methods, "token")
	}
	if u.Username != "" || u.Password != "" {
		methods = append(methods, "basic auth")
	}
	if u.Exec != nil {
		methods = append(methods, "exec plugin")
	}
	if len(methods) > 1 {
		return bad("", "more than one authentication method ("+strings.Join(methods, ", ")+"); keep one", nil)
	}
	hasCert := u.ClientCertificate != "" || len(u.ClientCertificateData) > 0
	hasKey := u.ClientKey != "" || len(u.ClientKeyData) > 0
	if u.Exec != nil && (hasCert || hasKey) {
		return bad("exec", "set together with a client certificate; keep one", nil)
	}
	switch {
	case u.Token != "" && u.TokenFile != "":
		return bad("tokenFile", "set together with token; keep one", nil)
	case u.ClientCertificate != "" && len(u.ClientCertificateData) > 0:
		return bad("client-certificate", "set together with client-certificate-data; keep one", nil)
	case u.ClientKey != "" && len(u.ClientKeyData) > 0:
		return bad("client-key", "set together with client-key-data; keep one", nil)
	case hasCert && !hasKey:
		return bad("client-key", "not set, but a client certificate is", nil)
	case hasKey && !hasCert:
		return bad("client-certificate", "not set, but a client key is", nil)
	case u.Impersonate == "" && (u.ImpersonateUID != "" || len(u.ImpersonateGroups) > 0 || len(u.ImpersonateUserExtra) > 0):
		return bad("as", "not set, but impersonation groups, uid or extra are", nil)
	}
	files := []struct{ field, path string }{
		{"tokenFile", u.TokenFile}, {"client-certificate", u.ClientCertificate}, {"client-key", u.ClientKey},
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := checkReadable(f.path); err != nil {
			return bad(f.field, "cannot be read", err)
		}
	}
	if u.Exec != nil {
		return checkExec(name, u.Exec)
	}
	return nil
}

func checkExec(user string, e *ExecConfig) error {
	bad := func(field, reason string) error {
		return &ConfigError{Kind: "user", Name: user, Field: "exec." + field, Reason: reason}
	}
	if e.Command == "" {
		return bad("command", "not set")
	}
	switch e.APIVersion {
	case ExecAPIv1, ExecAPIv1beta1:
	case "":
		return bad("apiVersion", "not set; use "+ExecAPIv1)
	default:
		return bad("apiVersion", fmt.Sprintf("%q is not supported; use %s or %s", e.APIVersion, ExecAPIv1, ExecAPIv1beta1))
	}
	switch e.InteractiveMode {
	case InteractiveNever, InteractiveIfAvailable, InteractiveAlways:
	case "":
		if e.APIVersion == ExecAPIv1 {
			return bad("interactiveMode", "not set; "+ExecAPIv1+" requires Never, IfAvailable or Always")
		}
	default:
		return bad("interactiveMode", fmt.Sprintf("%q is not Never, IfAvailable or Always", e.InteractiveMode))
	}
	for _, v := range e.Env {
		if v.Name == "" {
			return bad("env", "an entry has no name")
		}
	}
	return nil
}

// checkReadable opens a file the way the client will later read it, so a
// typo in a path shows up now, naming the field, rather than on the first
// request.
func checkReadable(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return f.Close()
}

// normalizeServer gives the server URL a scheme: one without is https when TLS
// settings are present, http otherwise (kubectl's rule). A query or fragment
// is dropped.
func normalizeServer(server string, tlsHint bool) (*url.URL, error) {
	s := server
	if !strings.Contains(s, "://") {
		if tlsHint {
			s = "https://" + s
		} else {
			s = "http://" + s
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

func parseProxyURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "http", "https", "socks5":
	default:
		return nil, fmt.Errorf("scheme %q is not http, https or socks5", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}
