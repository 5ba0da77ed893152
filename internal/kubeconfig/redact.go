package kubeconfig

import (
	"fmt"
	"strings"
)

// The String and GoString methods here exist so that printing a value with
// any verb (%v, %+v, %#v, %s) can never leak a credential.

func secret(s string) string {
	if s == "" {
		return `""`
	}
	return "[redacted]"
}

func secretBytes(b []byte) string {
	if len(b) == 0 {
		return "[]"
	}
	return fmt.Sprintf("[redacted %d bytes]", len(b))
}

func dataLen(b []byte) string {
	if len(b) == 0 {
		return "[]"
	}
	return fmt.Sprintf("[%d bytes]", len(b))
}

// String shows the configuration with every credential redacted.
func (c ClientConfig) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{Host:%s TLS:%v BearerToken:%s BearerTokenFile:%s Username:%q Password:%s",
		c.Host, c.TLS, secret(c.BearerToken), c.BearerTokenFile, c.Username, secret(c.Password))
	fmt.Fprintf(&b, " Impersonate:%+v UserAgent:%q Timeout:%v Namespace:%s Context:%q Cluster:%q User:%q",
		c.Impersonate, c.UserAgent, c.Timeout, c.Namespace, c.Context, c.Cluster, c.User)
	if c.Credentials != nil {
		fmt.Fprintf(&b, " Credentials:%v", c.Credentials)
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, so that %#v redacts too.
func (c ClientConfig) GoString() string { return c.String() }

// String shows the TLS settings with the private key redacted.
func (t TLSConfig) String() string {
	return fmt.Sprintf("{CAFile:%s CAData:%s CertFile:%s KeyFile:%s CertData:%s KeyData:%s ServerName:%s Insecure:%t ClientCertificateHook:%t}",
		t.CAFile, dataLen(t.CAData), t.CertFile, t.KeyFile, dataLen(t.CertData), secretBytes(t.KeyData),
		t.ServerName, t.Insecure, t.GetClientCertificate != nil)
}

// GoString is String, so that %#v redacts too.
func (t TLSConfig) GoString() string { return t.String() }

// String shows the user with its token, password, key data and exec
// environment values redacted.
func (u User) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "{Token:%s TokenFile:%s Username:%q Password:%s", secret(u.Token), u.TokenFile, u.Username, secret(u.Password))
	fmt.Fprintf(&b, " ClientCertificate:%s ClientCertificateData:%s ClientKey:%s ClientKeyData:%s",
		u.ClientCertificate, dataLen(u.ClientCertificateData), u.ClientKey, secretBytes(u.ClientKeyData))
	if u.Impersonate != "" {
		fmt.Fprintf(&b, " As:%q AsUID:%q AsGroups:%q", u.Impersonate, u.ImpersonateUID, u.ImpersonateGroups)
	}
	if u.AuthProvider != nil {
		fmt.Fprintf(&b, " AuthProvider:%q", u.AuthProvider.Name)
	}
	if u.Exec != nil {
		fmt.Fprintf(&b, " Exec:%v", *u.Exec)
	}
	fmt.Fprintf(&b, " Origin:%s}", u.Origin)
	return b.String()
}

// GoString is String, so that %#v redacts too.
func (u User) GoString() string { return u.String() }

// String shows the plugin with its arguments and environment values
// redacted: plugins such as kubelogin take client secrets as flags.
func (e ExecConfig) String() string {
	names := make([]string, len(e.Env))
	for i, v := range e.Env {
		names[i] = v.String()
	}
	return fmt.Sprintf("{Command:%s Args:[%d redacted] Env:[%s] APIVersion:%s InteractiveMode:%s ProvideClusterInfo:%t}",
		e.Command, len(e.Args), strings.Join(names, " "), e.APIVersion, e.InteractiveMode, e.ProvideClusterInfo)
}

// GoString is String, so that %#v redacts too.
func (e ExecConfig) GoString() string { return e.String() }

// String redacts the value, which may be a secret.
func (v ExecEnvVar) String() string { return v.Name + "=" + secret(v.Value) }

// GoString is String, so that %#v redacts too.
func (v ExecEnvVar) GoString() string { return v.String() }
