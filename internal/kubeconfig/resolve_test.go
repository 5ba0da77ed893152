package kubeconfig

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// view is the comparable part of a ClientConfig: data fields by length,
// hooks by presence.
type view struct {
	Host                         string
	CAFile                       string
	CAData, CertData, KeyData    int
	CertFile, KeyFile            string
	ServerName                   string
	Insecure                     bool
	BearerToken, BearerTokenFile string
	Username, Password           string
	Impersonate                  Impersonation
	Namespace                    string
	Timeout                      time.Duration
	Exec, CertHook               bool
}

func viewOf(cc *ClientConfig) view {
	return view{
		Host: cc.Host, CAFile: cc.TLS.CAFile, CAData: len(cc.TLS.CAData), CertData: len(cc.TLS.CertData), KeyData: len(cc.TLS.KeyData),
		CertFile: cc.TLS.CertFile, KeyFile: cc.TLS.KeyFile, ServerName: cc.TLS.ServerName, Insecure: cc.TLS.Insecure,
		BearerToken: cc.BearerToken, BearerTokenFile: cc.BearerTokenFile, Username: cc.Username, Password: cc.Password,
		Impersonate: cc.Impersonate, Namespace: cc.Namespace, Timeout: cc.Timeout,
		Exec: cc.Credentials != nil, CertHook: cc.TLS.GetClientCertificate != nil,
	}
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestUserAuthKinds(t *testing.T) {
	cfg, err := LoadFile("testdata/auth.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	secure := view{Host: "https://secure.example:6443", CAData: 599, ServerName: "api.secure.example", Namespace: "default"}
	with := func(f func(*view)) view { v := secure; f(&v); return v }
	tests := []struct {
		context string
		o       Options
		want    view
	}{
		{"token", Options{}, with(func(v *view) { v.BearerToken = "static-token-value"; v.Namespace = "team-a" })},
		{"token-file", Options{}, with(func(v *view) { v.BearerTokenFile = abs(t, "testdata/relative/token") })},
		{"cert-files", Options{}, with(func(v *view) {
			v.CertFile, v.KeyFile = abs(t, "testdata/relative/certs/client.crt"), abs(t, "testdata/relative/certs/client.key")
		})},
		{"cert-data", Options{}, with(func(v *view) { v.CertData, v.KeyData = 481, 241 })},
		{"basic", Options{}, with(func(v *view) { v.Username, v.Password = "admin", "basic-password-value" })},
		{"exec", Options{}, with(func(v *view) { v.Exec, v.CertHook = true, true })},
		{"impersonating", Options{}, with(func(v *view) {
			v.BearerToken = "static-token-value"
			v.Impersonate = Impersonation{UserName: "jane", UID: "1234", Groups: []string{"devs", "ops"},
				Extra: map[string][]string{"example.com/scopes": {"view", "edit"}}}
		})},
		{"anonymous", Options{}, secure},
		// Over plain http no credential is used, as kubectl does, so that
		// none travels in clear text.
		{"plain", Options{}, view{Host: "http://plain.example:8080", Namespace: "default"}},
		// Flags.
		{"exec", Options{Token: "flag-token"}, with(func(v *view) { v.BearerToken = "flag-token" })},
		{"token-file", Options{Token: "flag-token"}, with(func(v *view) { v.BearerToken = "flag-token" })},
		{"token", Options{Namespace: "ns-flag", Timeout: 7 * time.Second}, with(func(v *view) {
			v.BearerToken = "static-token-value"
			v.Namespace, v.Timeout = "ns-flag", 7*time.Second
		})},
		{"anonymous", Options{Server: "https://other.example"}, with(func(v *view) { v.Host, v.ServerName = "https://other.example", "" })},
		{"anonymous", Options{Server: "https://other.example", TLSServerName: "n"}, with(func(v *view) { v.Host, v.ServerName = "https://other.example", "n" })},
		{"anonymous", Options{InsecureSkipTLSVerify: true}, with(func(v *view) { v.CAData, v.Insecure = 0, true })},
		{"anonymous", Options{CertificateAuthority: "testdata/relative/certs/ca.crt"}, with(func(v *view) {
			v.CAData, v.CAFile = 0, "testdata/relative/certs/ca.crt"
		})},
		{"cert-data", Options{ClientCertificate: "testdata/relative/certs/client.crt", ClientKey: "testdata/relative/certs/client.key"}, with(func(v *view) {
			v.CertFile, v.KeyFile = "testdata/relative/certs/client.crt", "testdata/relative/certs/client.key"
		})},
		{"token", Options{Impersonate: "bob", ImpersonateGroups: []string{"g1"}}, with(func(v *view) {
			v.BearerToken, v.Namespace = "static-token-value", "team-a"
			v.Impersonate = Impersonation{UserName: "bob", Groups: []string{"g1"}}
		})},
		{"token", Options{User: "basic"}, with(func(v *view) { v.Username, v.Password, v.Namespace = "admin", "basic-password-value", "team-a" })},
		{"plain", Options{Cluster: "secure"}, with(func(v *view) { v.BearerToken = "static-token-value" })},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %+v", tt.context, tt.o), func(t *testing.T) {
			tt.o.Context = tt.context
			cc, err := cfg.ClientConfig(tt.o)
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, viewOf(cc)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientConfigDoesNotChangeConfig(t *testing.T) {
	cfg, err := LoadFile("testdata/auth.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	if _, err := cfg.ClientConfig(Options{Context: "impersonating", Server: "https://x.example", Token: "x", ImpersonateGroups: []string{"z"}}); err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	u, cl := cfg.Users["impersonating"], cfg.Clusters["secure"]
	if u.Token != "static-token-value" || cl.Server != "https://secure.example:6443" || len(u.ImpersonateGroups) != 2 {
		t.Errorf("overrides leaked into the Config: user %v, cluster server %q", u, cl.Server)
	}
}

func TestInvalidSettings(t *testing.T) {
	cfg, err := LoadFile("testdata/broken/invalid.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	missingCA := abs(t, "testdata/broken/no-such-ca.crt")
	tests := []struct {
		context string
		want    string
	}{
		{"no-server", `kubeconfig: cluster "no-server": server: not set`},
		{"missing-ca", `kubeconfig: cluster "missing-ca": certificate-authority: cannot be read: open ` + missingCA + `: no such file or directory`},
		{"ca-and-insecure", `kubeconfig: cluster "ca-and-insecure": insecure-skip-tls-verify: set together with a certificate authority; keep one`},
		{"bad-server", `kubeconfig: cluster "bad-server": server: not a URL: scheme "ftp" is not http or https`},
		{"cert-no-key", `kubeconfig: user "cert-no-key": client-key: not set, but a client certificate is`},
		{"token-and-basic", `kubeconfig: user "token-and-basic": more than one authentication method (token, basic auth); keep one`},
		{"exec-no-api", `kubeconfig: user "exec-no-api": exec.apiVersion: not set; use client.authentication.k8s.io/v1`},
		{"exec-v1-no-mode", `kubeconfig: user "exec-v1-no-mode": exec.interactiveMode: not set; client.authentication.k8s.io/v1 requires Never, IfAvailable or Always`},
		{"exec-old-api", `kubeconfig: user "exec-old-api": exec.apiVersion: "client.authentication.k8s.io/v1alpha1" is not supported; use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1`},
	}
	for _, tt := range tests {
		t.Run(tt.context, func(t *testing.T) {
			cc, err := cfg.ClientConfig(Options{Context: tt.context})
			if err == nil {
				t.Fatalf("ClientConfig succeeded with %v, want error %q", cc, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Errorf("error %v is %T, want *ConfigError", err, err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q quotes a credential", err)
			}
		})
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"", 0, false}, {"0", 0, false}, {"30", 30 * time.Second, false}, {"1m30s", 90 * time.Second, false},
		{"-1", 0, true}, {"-1s", 0, true}, {"soon", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTimeout(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseTimeout(%q) error = %v, want error %t", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseTimeout(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestImpersonationAndBasicAuthHeaders(t *testing.T) {
	cfg, err := LoadFile("testdata/auth.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	tests := []struct {
		name string
		o    Options
		want http.Header
	}{
		{
			name: "kubeconfig impersonation",
			o:    Options{Context: "impersonating"},
			want: http.Header{
				"Impersonate-User":                       {"jane"},
				"Impersonate-Uid":                        {"1234"},
				"Impersonate-Group":                      {"devs", "ops"},
				"Impersonate-Extra-Example.com%2fscopes": {"view", "edit"},
			},
		},
		{
			name: "--as and --as-group",
			o:    Options{Context: "token", Impersonate: "bob", ImpersonateGroups: []string{"a", "b"}},
			want: http.Header{"Impersonate-User": {"bob"}, "Impersonate-Group": {"a", "b"}},
		},
		{
			name: "basic auth",
			o:    Options{Context: "basic"},
			want: http.Header{"Authorization": {"Basic YWRtaW46YmFzaWMtcGFzc3dvcmQtdmFsdWU="}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := cfg.ClientConfig(tt.o)
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			var got http.Header
			rt := cc.WrapTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
				got = http.Header{}
				for k, v := range r.Header {
					if strings.HasPrefix(k, "Impersonate-") || k == "Authorization" {
						got[k] = v
					}
				}
				return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
			}))
			req := httptest.NewRequest("GET", "https://secure.example:6443/api", nil)
			if _, err := rt.RoundTrip(req); err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers mismatch (-want +got):\n%s", diff)
			}
			if len(req.Header) != 0 {
				t.Errorf("the caller's request was changed: %v", req.Header)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestProxy(t *testing.T) {
	cfg, err := LoadFile("testdata/proxy.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	tests := []struct {
		context string
		want    string // the proxy for a request to the server; "" for none
	}{
		{"http-proxy", "http://proxy.example:3128"},
		{"socks", "socks5://socks.example:1080"},
	}
	for _, tt := range tests {
		t.Run(tt.context, func(t *testing.T) {
			cc, err := cfg.ClientConfig(Options{Context: tt.context})
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			req := httptest.NewRequest("GET", cc.Host+"/api", nil)
			got, err := cc.Proxy(req)
			if err != nil {
				t.Fatalf("Proxy: %v", err)
			}
			if got.String() != tt.want {
				t.Errorf("Proxy = %v, want %s", got, tt.want)
			}
		})
	}
	t.Run("bad-scheme", func(t *testing.T) {
		_, err := cfg.ClientConfig(Options{Context: "bad-scheme"})
		want := `kubeconfig: cluster "bad-scheme": proxy-url: unusable: scheme "ftp" is not http, https or socks5`
		if err == nil || err.Error() != want {
			t.Fatalf("error = %v, want %s", err, want)
		}
	})
	t.Run("direct uses the environment", func(t *testing.T) {
		// TestProxyTunnels sends requests this way; here only the choice.
		setProxyEnv(t, "http://env-proxy.example:3128", "")
		cc, err := cfg.ClientConfig(Options{Context: "direct"})
		if err != nil {
			t.Fatalf("ClientConfig: %v", err)
		}
		got, err := cc.Proxy(httptest.NewRequest("GET", cc.Host+"/api", nil))
		if err != nil || got == nil || got.String() != "http://env-proxy.example:3128" {
			t.Errorf("Proxy = %v, %v; want HTTPS_PROXY's http://env-proxy.example:3128", got, err)
		}
	})
}

// TestProxyURLCarriesRequests sends a request through a proxy-url that points
// at a recording proxy.
func TestProxyURLCarriesRequests(t *testing.T) {
	var got string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.RequestURI
		fmt.Fprint(w, "via proxy")
	}))
	defer proxy.Close()
	cfg := &Config{
		CurrentContext: "c",
		Clusters:       map[string]*Cluster{"c": {Server: "http://apiserver.invalid:8080", ProxyURL: proxy.URL}},
		Contexts:       map[string]*Context{"c": {Cluster: "c"}},
	}
	cc, err := cfg.ClientConfig(Options{})
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	tr := &http.Transport{Proxy: cc.Proxy}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: cc.WrapTransport(tr), Timeout: 10 * time.Second}
	resp, err := client.Get(cc.Host + "/api/v1/pods")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	resp.Body.Close()
	if want := "GET http://apiserver.invalid:8080/api/v1/pods"; got != want {
		t.Errorf("proxy saw %q, want %q", got, want)
	}
}

func TestNoCredentialInOutput(t *testing.T) {
	cfg, err := LoadFile("testdata/auth.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	secrets := []string{"static-token-value", "basic-password-value", "exec-arg-secret", "exec-env-secret", "PRIVATE KEY"}
	keyPEM := string(cfg.Users["cert-data"].ClientKeyData)
	for _, name := range []string{"token", "basic", "exec", "cert-data", "impersonating"} {
		cc, err := cfg.ClientConfig(Options{Context: name})
		if err != nil {
			t.Fatalf("ClientConfig(%s): %v", name, err)
		}
		u := cfg.Users[name]
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(verb, cc) + fmt.Sprintf(verb, *cc) + fmt.Sprintf(verb, u) + fmt.Sprintf(verb, *u) + fmt.Sprintf(verb, cfg)
			for _, s := range append(secrets, keyPEM) {
				if strings.Contains(out, s) {
					t.Errorf("Sprintf(%q) of context %s shows %q:\n%s", verb, name, s, out)
				}
			}
		}
	}
}

func TestServerWithoutScheme(t *testing.T) {
	tests := []struct {
		cluster Cluster
		want    string
	}{
		{Cluster{Server: "localhost:8080"}, "http://localhost:8080"},
		{Cluster{Server: "k.example:6443", InsecureSkipTLSVerify: true}, "https://k.example:6443"},
		{Cluster{Server: "https://k.example/prefix?x=1#f"}, "https://k.example/prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.cluster.Server, func(t *testing.T) {
			cfg := &Config{CurrentContext: "c", Clusters: map[string]*Cluster{"c": &tt.cluster}, Contexts: map[string]*Context{"c": {Cluster: "c"}}}
			cc, err := cfg.ClientConfig(Options{})
			if err != nil {
				t.Fatalf("ClientConfig: %v", err)
			}
			if cc.Host != tt.want {
				t.Errorf("Host = %q, want %q", cc.Host, tt.want)
			}
		})
	}
}
