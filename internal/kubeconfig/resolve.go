package kubeconfig

import (
	"errors"
	"net/http"
	"slices"

	"github.com/podwatch/podwatch/rest"
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
		Proxy: rest.ProxyFromEnvironment(),
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
