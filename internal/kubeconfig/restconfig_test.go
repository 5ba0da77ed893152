package kubeconfig

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/podwatch/podwatch/rest"
)

// TestRESTClientWithExecPlugin runs podwatch's REST client on a ClientConfig
// whose user has an exec plugin: the first token is refused, the plugin runs
// again and the request succeeds.
func TestRESTClientWithExecPlugin(t *testing.T) {
	srv := newAPIServer(t)
	srv.revoke("plugin-token-1")
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM()}, ExecIO{})
	cfg, err := cc.RESTConfig()
	if err != nil {
		t.Fatalf("RESTConfig: %v", err)
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body, err := client.Get().AbsPath("/api").Do(ctx)
	if err != nil {
		t.Fatalf("GET /api: %v", err)
	}
	if string(body) != "ok " {
		t.Errorf("body %q, want %q", body, "ok ")
	}
	if diff := cmp.Diff([]string{"plugin-token-1", "plugin-token-2"}, srv.tokens()); diff != "" {
		t.Errorf("tokens the server saw (-want +got):\n%s", diff)
	}
	if got := runs(t, dir); got != 2 {
		t.Errorf("plugin ran %d times, want 2", got)
	}
}

func TestRESTConfigFields(t *testing.T) {
	cfg, err := LoadFile("testdata/auth.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	cc, err := cfg.ClientConfig(Options{Context: "cert-files", Timeout: 3 * time.Second})
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	rc, err := cc.RESTConfig()
	if err != nil {
		t.Fatalf("RESTConfig: %v", err)
	}
	if rc.Host != cc.Host || rc.TLS.CertFile != cc.TLS.CertFile || rc.TLS.KeyFile != cc.TLS.KeyFile ||
		len(rc.TLS.CAData) != len(cc.TLS.CAData) || rc.TLS.ServerName != "api.secure.example" || rc.Timeout != 3*time.Second {
		t.Errorf("RESTConfig = %+v, want the fields of %v", rc, cc)
	}
	if _, err := rest.NewClient(rc); err != nil {
		t.Errorf("NewClient refused the converted config: %v", err)
	}

	proxied, err := LoadFile("testdata/proxy.yaml")
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	pc, err := proxied.ClientConfig(Options{Context: "http-proxy"})
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	prc, err := pc.RESTConfig()
	if err != nil {
		t.Fatalf("RESTConfig with proxy-url: %v", err)
	}
	if prc.Proxy == nil {
		t.Fatalf("RESTConfig dropped the cluster's proxy-url")
	}
	req, _ := http.NewRequest("GET", prc.Host+"/api/v1/pods", nil)
	got, err := prc.Proxy(req)
	if err != nil || got == nil || got.String() != pc.proxyURL.String() {
		t.Fatalf("Proxy(%s) = %v, %v; want %v", req.URL, got, err, pc.proxyURL)
	}
}
