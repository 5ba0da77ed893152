package kubeconfig

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
)

// New loads the kubeconfig the rules name and resolves it with o. When no file
// defines anything, o names no server and rules.InCluster is set, it uses the
// pod's service account instead (kubectl's fallback); outside a pod that case
// is ErrEmptyConfig.
func New(rules Rules, o Options) (*ClientConfig, error) {
	cfg, err := Load(rules)
	if err != nil {
		return nil, err
	}
	if cfg.empty() && o.Server == "" && rules.InCluster != nil {
		ic, err := InCluster(*rules.InCluster)
		switch {
		case err == nil:
			cfg = ic
		case !errors.Is(err, ErrNotInCluster):
			return nil, err
		}
	}
	return cfg.ClientConfig(o)
}

// ClientConfig picks the context (o.Context, else current-context), its
// cluster and user, applies o's overrides and checks that the result can work.
//
// It returns ErrEmptyConfig when the config defines nothing and o names no
// server; a *NotFoundError for a context, cluster or user name nothing
// defines; an *AuthProviderError for a user with auth-provider; a *ConfigError
// for settings that cannot work (no server, a certificate without its key, a
// file that cannot be opened, two authentication methods). Credentials are
// only used with an https server, as kubectl does, so that they never travel
// in clear text. It opens the files named to check they can be read (and
// reads the CA for a plugin with provideClusterInfo), but runs no exec
// plugin: that happens on the first request that needs a credential.
func (c *Config) ClientConfig(o Options) (*ClientConfig, error) {
	sel, err := c.pick(o)
	if err != nil {
		return nil, err
	}
	cl := overrideCluster(sel.cluster, o)
	u := overrideUser(sel.user, o)
	if cl.Server == "" {
		if c.empty() {
			return nil, ErrEmptyConfig
		}
		return nil, &ConfigError{Kind: "cluster", Name: sel.clusterName, Field: "server", Reason: "not set"}
	}
	if err := checkCluster(sel.clusterName, &cl); err != nil {
		return nil, err
	}
	if err := checkUser(sel.userName, &u); err != nil {
		return nil, err
	}
	return build(sel, &cl, &u, o)
}

// selection is the context, cluster and user ClientConfig works from. The
// cluster and user are copies, so overrides never touch the Config.
type selection struct {
	contextName, clusterName, userName string
	context                            Context
	cluster                            Cluster
	user                               User
}

func (c *Config) pick(o Options) (*selection, error) {
	s := &selection{contextName: c.CurrentContext}
	if o.Context != "" {
		s.contextName = o.Context
	}
	if s.contextName != "" {
		x, ok := c.Contexts[s.contextName]
		if !ok {
			return nil, &NotFoundError{Kind: "context", Name: s.contextName, Files: c.Files}
		}
		s.context = *x
	}
	s.clusterName, s.userName = s.context.Cluster, s.context.User
	namedBy := s.contextName
	if o.Cluster != "" {
		s.clusterName = o.Cluster
	}
	if o.User != "" {
		s.userName = o.User
	}
	if s.clusterName != "" {
		cl, ok := c.Clusters[s.clusterName]
		if !ok {
			return nil, &NotFoundError{Kind: "cluster", Name: s.clusterName, Context: by(namedBy, o.Cluster), Files: c.Files}
		}
		s.cluster = *cl
	}
	if s.userName != "" {
		u, ok := c.Users[s.userName]
		if !ok {
			return nil, &NotFoundError{Kind: "user", Name: s.userName, Context: by(namedBy, o.User), Files: c.Files}
		}
		s.user = *u
	}
	return s, nil
}

// by is the context that named an entry, or "" when a flag named it.
func by(context, flag string) string {
	if flag != "" {
		return ""
	}
	return context
}

func overrideCluster(cl Cluster, o Options) Cluster {
	if o.Server != "" {
		cl.Server = o.Server
		// A new server makes the kubeconfig's TLS name meaningless; only the
		// flag's (possibly empty) value stands.
		cl.TLSServerName = o.TLSServerName
	}
	if o.TLSServerName != "" {
		cl.TLSServerName = o.TLSServerName
	}
	if o.CertificateAuthority != "" || o.InsecureSkipTLSVerify {
		// Either flag decides trust alone: a CA from the file next to
		// --insecure-skip-tls-verify (or the reverse) would be refused.
		cl.CertificateAuthority = o.CertificateAuthority
		cl.CertificateAuthorityData = nil
		cl.InsecureSkipTLSVerify = o.InsecureSkipTLSVerify
	}
	return cl
}

func overrideUser(u User, o Options) User {
	if o.Token != "" {
		// --token is meant to be the credential used: drop the others so
		// that neither a token file nor a plugin can replace it.
		u.Token, u.TokenFile, u.Exec = o.Token, "", nil
		u.Username, u.Password = "", ""
	}
	if o.ClientCertificate != "" {
		u.ClientCertificate, u.ClientCertificateData = o.ClientCertificate, nil
	}
	if o.ClientKey != "" {
		u.ClientKey, u.ClientKeyData = o.ClientKey, nil
	}
	if o.Impersonate != "" {
		u.Impersonate = o.Impersonate
	}
	if o.ImpersonateUID != "" {
		u.ImpersonateUID = o.ImpersonateUID
	}
	if len(o.ImpersonateGroups) > 0 {
		u.ImpersonateGroups = slices.Clone(o.ImpersonateGroups)
	}
	return u
}

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

func build(sel *selection, cl *Cluster, u *User, o Options) (*ClientConfig, error) {
	hasCert := u.ClientCertificate != "" || len(u.ClientCertificateData) > 0
	tlsHint := cl.CertificateAuthority != "" || len(cl.CertificateAuthorityData) > 0 || cl.InsecureSkipTLSVerify || hasCert
	host, err := normalizeServer(cl.Server, tlsHint)
	if err != nil {
		return nil, &ConfigError{Kind: "cluster", Name: sel.clusterName, Field: "server", Reason: "not a URL", Err: err}
	}
	cc := &ClientConfig{
		Host:               host.String(),
		Timeout:            o.Timeout,
		DisableCompression: cl.DisableCompression,
		Namespace:          namespace(o, sel),
		Context:            sel.contextName,
		Cluster:            sel.clusterName,
		User:               sel.userName,
		Impersonate: Impersonation{
			UserName: u.Impersonate,
			UID:      u.ImpersonateUID,
			Groups:   slices.Clone(u.ImpersonateGroups),
			Extra:    u.ImpersonateUserExtra,
		},
		TLS: TLSConfig{
			CAFile:     cl.CertificateAuthority,
			CAData:     cl.CertificateAuthorityData,
			ServerName: cl.TLSServerName,
			Insecure:   cl.InsecureSkipTLSVerify,
		},
		Proxy: http.ProxyFromEnvironment,
	}
	if cl.ProxyURL != "" {
		pu, _ := parseProxyURL(cl.ProxyURL) // checked by checkCluster
		cc.Proxy, cc.proxyURL = http.ProxyURL(pu), pu
	}
	if host.Scheme == "https" {
		if err := addCredentials(cc, sel, cl, u, o); err != nil {
			return nil, err
		}
	}
	cc.WrapTransport = wrapper(cc)
	return cc, nil
}

func namespace(o Options, sel *selection) string {
	switch {
	case o.Namespace != "":
		return o.Namespace
	case sel.context.Namespace != "":
		return sel.context.Namespace
	}
	return "default"
}

func addCredentials(cc *ClientConfig, sel *selection, cl *Cluster, u *User, o Options) error {
	switch {
	case u.TokenFile != "":
		cc.BearerTokenFile = u.TokenFile
	case u.Token != "":
		cc.BearerToken = u.Token
	}
	cc.Username, cc.Password = u.Username, u.Password
	cc.TLS.CertFile, cc.TLS.CertData = u.ClientCertificate, u.ClientCertificateData
	cc.TLS.KeyFile, cc.TLS.KeyData = u.ClientKey, u.ClientKeyData
	if u.Exec == nil {
		return nil
	}
	info, err := execClusterInfo(cc, cl, u.Exec.ProvideClusterInfo)
	if err != nil {
		return &ConfigError{Kind: "cluster", Name: sel.clusterName, Field: "certificate-authority", Reason: "cannot be read", Err: err}
	}
	cc.Credentials = newExecCredentials(sel.userName, *u.Exec, info, o.Exec)
	cc.TLS.GetClientCertificate = cc.Credentials.GetClientCertificate
	return nil
}
