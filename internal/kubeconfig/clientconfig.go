package kubeconfig

import (
	"crypto/tls"
	"net/http"
	"net/url"
	"time"
)

// Options are kubectl's connection flags, each overriding the kubeconfig, plus
// what exec plugins inherit from this process. The zero value uses the
// kubeconfig as it is.
type Options struct {
	Context   string // --context: instead of current-context
	Cluster   string // --cluster: instead of the context's cluster
	User      string // --user: instead of the context's user
	Namespace string // --namespace

	Server        string // --server
	TLSServerName string // --tls-server-name; --server alone clears the kubeconfig's
	// CertificateAuthority (--certificate-authority) replaces the cluster's CA
	// and turns insecure-skip-tls-verify off.
	CertificateAuthority string
	// InsecureSkipTLSVerify (--insecure-skip-tls-verify) drops the cluster's CA.
	InsecureSkipTLSVerify bool
	ClientCertificate     string   // --client-certificate
	ClientKey             string   // --client-key
	Token                 string   // --token: wins over the user's other credentials
	Impersonate           string   // --as
	ImpersonateUID        string   // --as-uid
	ImpersonateGroups     []string // --as-group, repeatable
	// Timeout is --request-timeout (see ParseTimeout); zero means none.
	Timeout time.Duration

	// Exec is what exec credential plugins inherit.
	Exec ExecIO
}

// ClientConfig is everything podwatch's REST client needs to reach and
// authenticate to one apiserver. Its fields mirror rest.Config; Proxy,
// Credentials, basic auth and impersonation come in through Proxy,
// TLS.GetClientCertificate and WrapTransport. String redacts credentials.
type ClientConfig struct {
	// Host is the server URL with its scheme, e.g. "https://10.0.0.1:6443".
	Host string
	TLS  TLSConfig
	// BearerToken is a static token; BearerTokenFile, when set instead, is a
	// file to re-read as the token in it rotates.
	BearerToken     string
	BearerTokenFile string
	// Username and Password are basic-auth credentials; WrapTransport already
	// sends them.
	Username, Password string
	// Impersonate is sent as Impersonate-* headers by WrapTransport.
	Impersonate Impersonation
	UserAgent   string
	// Timeout is the request timeout the user asked for; it must never cut a
	// watch's body.
	Timeout time.Duration
	// Proxy picks the proxy for a request: the cluster's proxy-url, or
	// HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment.
	Proxy func(*http.Request) (*url.URL, error)
	// DisableCompression is the cluster's disable-compression.
	DisableCompression bool
	// Namespace is the namespace to use: --namespace, else the context's, else
	// "default".
	Namespace string
	// Context, Cluster and User name the kubeconfig entries used.
	Context, Cluster, User string
	// Credentials is the user's exec plugin, nil when there is none. It is
	// already wired into WrapTransport and TLS.GetClientCertificate.
	Credentials *ExecCredentials
	// WrapTransport adds what this package authenticates with (exec
	// credentials, basic auth) and the impersonation headers. It never
	// replaces an Authorization header a request already has.
	WrapTransport func(http.RoundTripper) http.RoundTripper

	proxyURL *url.URL // the cluster's proxy-url, nil when the environment decides
}

// TLSConfig mirrors rest.TLSConfig. File paths are absolute or relative to the
// working directory; data fields hold PEM.
type TLSConfig struct {
	CAFile     string
	CAData     []byte
	CertFile   string
	KeyFile    string
	CertData   []byte
	KeyData    []byte
	ServerName string
	Insecure   bool
	// GetClientCertificate, when set, is the tls.Config hook that supplies a
	// client certificate per handshake (an exec plugin's); it is never set
	// together with CertFile or CertData.
	GetClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
}

// Impersonation is who the requests act as (kubectl's --as, --as-uid,
// --as-group and the user's as-user-extra).
type Impersonation struct {
	UserName string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

func (i Impersonation) empty() bool {
	return i.UserName == "" && i.UID == "" && len(i.Groups) == 0 && len(i.Extra) == 0
}
