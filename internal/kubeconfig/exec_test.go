package kubeconfig

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/podwatch/podwatch/rest"
)

// plugin describes a kubeconfig whose user runs the fake plugin.
type plugin struct {
	mode        string
	apiVersion  string // default v1
	interactive string // default Never
	provide     bool
	expiry      time.Time
	env         []ExecEnvVar
	hint        string
	command     string // default: the fake plugin
	server      string // default https://unused.invalid
	ca          []byte
	serverName  string
	extension   json.RawMessage
}

// setup writes the kubeconfig into a temporary folder, loads it and returns
// the ClientConfig and the plugin's folder.
func setup(t *testing.T, p plugin, eio ExecIO) (*ClientConfig, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := p.command
	if cmd == "" {
		cmd = fakePlugin(t)
	}
	env := append([]ExecEnvVar{{Name: "PLUGIN_DIR", Value: dir}}, p.env...)
	if !p.expiry.IsZero() {
		env = append(env, ExecEnvVar{Name: "PLUGIN_EXPIRY", Value: p.expiry.Format(time.RFC3339)})
	}
	exec := &ExecConfig{
		Command: cmd, Args: []string{"-mode=" + or(p.mode, "token")}, Env: env,
		APIVersion: or(p.apiVersion, ExecAPIv1), InteractiveMode: or(p.interactive, InteractiveNever),
		ProvideClusterInfo: p.provide, InstallHint: p.hint,
	}
	cluster := Cluster{Server: or(p.server, "https://unused.invalid"), CertificateAuthorityData: p.ca, TLSServerName: p.serverName}
	if p.extension != nil {
		cluster.Extensions = []NamedExtension{{Name: "client.authentication.k8s.io/exec", Extension: p.extension}, {Name: "other", Extension: json.RawMessage(`1`)}}
	}
	file := fileConfig{
		APIVersion: "v1", Kind: "Config", CurrentContext: "c",
		Clusters: []namedCluster{{Name: "c", Cluster: cluster}},
		Users:    []namedUser{{Name: "u", User: User{Exec: exec}}},
		Contexts: []namedContext{{Name: "c", Context: Context{Cluster: "c", User: "u"}}},
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	if eio.Environ == nil {
		eio.Environ = func() []string { return []string{"BASE_VAR=from-environ", "PLUGIN_EXTRA=overridden"} }
	}
	if eio.Stderr == nil {
		eio.Stderr = io.Discard
	}
	cc, err := cfg.ClientConfig(Options{Exec: eio})
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	if cc.Credentials == nil {
		t.Fatalf("ClientConfig has no exec credentials")
	}
	return cc, dir
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func runs(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// apiserver is an httptest TLS server that records the Authorization header
// of every request and answers 401 to revoked tokens.
type apiserver struct {
	*httptest.Server
	mu      sync.Mutex
	seen    []string
	revoked map[string]bool
}

func newAPIServer(t *testing.T) *apiserver {
	s := &apiserver{revoked: map[string]bool{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, strings.TrimPrefix(auth, "Bearer "))
		revoked := s.revoked[auth] || auth == ""
		s.mu.Unlock()
		if revoked {
			http.Error(w, `{"kind":"Status","code":401}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "ok %s", body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *apiserver) revoke(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked["Bearer "+token] = true
}

func (s *apiserver) tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *apiserver) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// clientFor builds an HTTP client from cc the way podwatch's REST client is
// expected to: trust from TLS, the certificate hook, the proxy, WrapTransport.
func clientFor(t *testing.T, cc *ClientConfig) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cc.TLS.CAData) {
		t.Fatalf("no CA in the ClientConfig")
	}
	tr := &http.Transport{
		Proxy: cc.Proxy,
		TLSClientConfig: &tls.Config{
			RootCAs: pool, ServerName: cc.TLS.ServerName, GetClientCertificate: cc.TLS.GetClientCertificate,
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: cc.WrapTransport(tr), Timeout: 30 * time.Second}
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, string(body)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestExecTokenCachedUntilExpiry(t *testing.T) {
	srv := newAPIServer(t)
	clock := &fakeClock{t: t0}
	expiry := t0.Add(time.Hour)
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM(), expiry: expiry}, ExecIO{Now: clock.Now})
	c := clientFor(t, cc)

	steps := []struct {
		now      time.Time
		wantRuns int
	}{
		{t0, 1},
		{t0.Add(59 * time.Minute), 1},
		{expiry, 2}, // expired at the instant given
		{expiry.Add(time.Second), 3},
	}
	for i, s := range steps {
		clock.Set(s.now)
		if code, _ := get(t, c, srv.URL+"/api"); code != http.StatusOK {
			t.Fatalf("step %d: status %d, want 200", i, code)
		}
		if got := runs(t, dir); got != s.wantRuns {
			t.Fatalf("step %d at %v: plugin ran %d times, want %d", i, s.now, got, s.wantRuns)
		}
	}
	want := []string{"plugin-token-1", "plugin-token-1", "plugin-token-2", "plugin-token-3"}
	if diff := cmp.Diff(want, srv.tokens()); diff != "" {
		t.Errorf("tokens the server saw (-want +got):\n%s", diff)
	}
}

func TestExecTokenWithoutExpiryIsKept(t *testing.T) {
	srv := newAPIServer(t)
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM()}, ExecIO{})
	c := clientFor(t, cc)
	for range 3 {
		get(t, c, srv.URL+"/api")
	}
	if got := runs(t, dir); got != 1 {
		t.Errorf("plugin ran %d times, want 1", got)
	}
}

func TestExecRefreshOn401(t *testing.T) {
	srv := newAPIServer(t)
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM()}, ExecIO{})
	c := clientFor(t, cc)

	// A bodyless request is retried with the new token.
	srv.revoke("plugin-token-1")
	if code, _ := get(t, c, srv.URL+"/api"); code != http.StatusOK {
		t.Fatalf("GET after 401: status %d, want 200", code)
	}
	if got := runs(t, dir); got != 2 {
		t.Fatalf("plugin ran %d times, want 2", got)
	}

	// A body that can be replayed is sent again.
	srv.revoke("plugin-token-2")
	resp, err := c.Post(srv.URL+"/api", "application/json", bytes.NewReader([]byte(`{"a":1}`)))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != `ok {"a":1}` {
		t.Fatalf("POST after 401: %d %q, want 200 %q", resp.StatusCode, body, `ok {"a":1}`)
	}

	// A body that cannot be replayed gets the 401; the next request the
	// new token.
	srv.revoke("plugin-token-3")
	resp, err = c.Post(srv.URL+"/api", "application/json", io.MultiReader(strings.NewReader("once")))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST with a one-shot body: status %d, want 401", resp.StatusCode)
	}
	if code, _ := get(t, c, srv.URL+"/api"); code != http.StatusOK {
		t.Fatalf("GET after refresh: status %d, want 200", code)
	}
	want := []string{
		"plugin-token-1", "plugin-token-2", // GET, retried
		"plugin-token-2", "plugin-token-3", // POST, retried
		"plugin-token-3", // POST, not retried
		"plugin-token-4", // GET
	}
	if diff := cmp.Diff(want, srv.tokens()); diff != "" {
		t.Errorf("tokens the server saw (-want +got):\n%s", diff)
	}
	if got := runs(t, dir); got != 4 {
		t.Errorf("plugin ran %d times, want 4", got)
	}
}

func TestExecRequestWithAuthorizationIsLeftAlone(t *testing.T) {
	srv := newAPIServer(t)
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM()}, ExecIO{})
	req, err := http.NewRequest("GET", srv.URL+"/api", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer caller-token")
	resp, err := clientFor(t, cc).Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	resp.Body.Close()
	if diff := cmp.Diff([]string{"caller-token"}, srv.tokens()); diff != "" {
		t.Errorf("tokens the server saw (-want +got):\n%s", diff)
	}
	if got := runs(t, dir); got != 0 {
		t.Errorf("plugin ran %d times, want 0", got)
	}
}

func TestExecConcurrentCallersShareOneRun(t *testing.T) {
	srv := newAPIServer(t)
	cc, dir := setup(t, plugin{server: srv.URL, ca: srv.caPEM()}, ExecIO{})
	c := clientFor(t, cc)
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			resp, err := c.Get(srv.URL + "/api")
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	timeout := time.After(time.Minute)
	for range n {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("GET: %v", err)
			}
		case <-timeout:
			t.Fatal("requests did not finish")
		}
	}
	if got := runs(t, dir); got != 1 {
		t.Errorf("plugin ran %d times for %d concurrent requests, want 1", got, n)
	}
}

func TestExecClientCertificate(t *testing.T) {
	ca, caKey := newCA(t)
	certFile, keyFile := newClientCert(t, ca, caKey, "plugin-user")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s auth=%q", r.TLS.PeerCertificates[0].Subject.CommonName, r.Header.Get("Authorization"))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	certEnv := []ExecEnvVar{{Name: "PLUGIN_CERT", Value: certFile}, {Name: "PLUGIN_KEY", Value: keyFile}}

	t.Run("accepted", func(t *testing.T) {
		cc, dir := setup(t, plugin{mode: "cert", server: srv.URL, ca: caPEM, env: certEnv}, ExecIO{})
		code, body := get(t, clientFor(t, cc), srv.URL+"/api")
		if want := `plugin-user auth=""`; code != http.StatusOK || body != want {
			t.Errorf("got %d %q, want 200 %q", code, body, want)
		}
		if got := runs(t, dir); got != 1 {
			t.Errorf("plugin ran %d times, want 1", got)
		}
	})
	t.Run("presented by the rest client", func(t *testing.T) {
		cc, _ := setup(t, plugin{mode: "cert", server: srv.URL, ca: caPEM, env: certEnv}, ExecIO{})
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
		if want := `plugin-user auth=""`; err != nil || string(body) != want {
			t.Errorf("GET /api = %q, %v; want %q", body, err, want)
		}
	})
	t.Run("a token is no certificate", func(t *testing.T) {
		cc, _ := setup(t, plugin{mode: "token", server: srv.URL, ca: caPEM}, ExecIO{})
		resp, err := clientFor(t, cc).Get(srv.URL + "/api")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET succeeded with status %d, want a TLS error", resp.StatusCode)
		}
	})
}

func TestExecInfo(t *testing.T) {
	srv := newAPIServer(t)
	ext := json.RawMessage(`{"audience":"podwatch"}`)
	tests := []struct {
		name string
		p    plugin
		want map[string]any
	}{
		{
			name: "v1 with cluster info",
			p:    plugin{apiVersion: ExecAPIv1, provide: true, server: srv.URL, ca: srv.caPEM(), serverName: "example.com", extension: ext},
			want: map[string]any{
				"apiVersion": ExecAPIv1, "kind": "ExecCredential",
				"spec": map[string]any{
					"interactive": false,
					"cluster": map[string]any{
						"server":                     srv.URL,
						"tls-server-name":            "example.com",
						"certificate-authority-data": b64(srv.caPEM()),
						"config":                     map[string]any{"audience": "podwatch"},
					},
				},
			},
		},
		{
			name: "v1beta1 without cluster info",
			p:    plugin{apiVersion: ExecAPIv1beta1, server: srv.URL, ca: srv.caPEM(), extension: ext},
			want: map[string]any{"apiVersion": ExecAPIv1beta1, "kind": "ExecCredential", "spec": map[string]any{"interactive": false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.env = []ExecEnvVar{{Name: "PLUGIN_EXTRA", Value: "from-kubeconfig"}}
			cc, dir := setup(t, tt.p, ExecIO{})
			if _, err := cc.Credentials.Token(context.Background()); err != nil {
				t.Fatalf("Token: %v", err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "info-1.json"))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("KUBERNETES_EXEC_INFO %q: %v", data, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("KUBERNETES_EXEC_INFO mismatch (-want +got):\n%s", diff)
			}
			env, err := os.ReadFile(filepath.Join(dir, "env-1.txt"))
			if err != nil {
				t.Fatal(err)
			}
			// The kubeconfig's env is added to (and wins over) the process's.
			if want := "BASE_VAR=from-environ\nPLUGIN_EXTRA=from-kubeconfig"; string(env) != want {
				t.Errorf("plugin environment %q, want %q", env, want)
			}
		})
	}
}

func b64(b []byte) string {
	out, _ := json.Marshal(b)
	return strings.Trim(string(out), `"`)
}

func TestExecInteractiveMode(t *testing.T) {
	tests := []struct {
		mode            string
		terminal        bool
		wantToken       string
		wantInteractive bool
		wantErr         string
	}{
		{mode: InteractiveNever, terminal: true, wantToken: "stdin:"},
		{mode: InteractiveIfAvailable, terminal: true, wantToken: "stdin:typed-in", wantInteractive: true},
		{mode: InteractiveIfAvailable, terminal: false, wantToken: "stdin:"},
		{mode: InteractiveAlways, terminal: true, wantToken: "stdin:typed-in", wantInteractive: true},
		{mode: InteractiveAlways, terminal: false, wantErr: "interactiveMode is Always, but standard input is not a terminal"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s terminal=%t", tt.mode, tt.terminal), func(t *testing.T) {
			eio := ExecIO{Stdin: strings.NewReader("typed-in\n"), IsTerminal: func() bool { return tt.terminal }}
			cc, dir := setup(t, plugin{mode: "stdin", interactive: tt.mode}, eio)
			token, err := cc.Credentials.Token(context.Background())
			if tt.wantErr != "" {
				var ee *ExecError
				if !errors.As(err, &ee) || ee.Reason != tt.wantErr {
					t.Fatalf("Token error = %v, want an ExecError %q", err, tt.wantErr)
				}
				if got := runs(t, dir); got != 0 {
					t.Errorf("plugin ran %d times, want 0", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Token: %v", err)
			}
			if token != tt.wantToken {
				t.Errorf("token %q, want %q", token, tt.wantToken)
			}
			var info execCredential
			data, _ := os.ReadFile(filepath.Join(dir, "info-1.json"))
			if err := json.Unmarshal(data, &info); err != nil {
				t.Fatalf("KUBERNETES_EXEC_INFO %q: %v", data, err)
			}
			if info.Spec.Interactive != tt.wantInteractive {
				t.Errorf("spec.interactive = %t, want %t", info.Spec.Interactive, tt.wantInteractive)
			}
		})
	}
}

func TestExecErrors(t *testing.T) {
	exe := fakePlugin(t)
	missing := filepath.Join(t.TempDir(), "no-such-plugin")
	tests := []struct {
		name    string
		p       plugin
		timeout time.Duration
		want    string
		check   func(*ExecError) bool
	}{
		{
			name:  "non-zero exit",
			p:     plugin{mode: "exit"},
			want:  fmt.Sprintf("exec plugin %q for user \"u\": exited with status 3", exe),
			check: func(e *ExecError) bool { return e.ExitCode == 3 },
		},
		{
			name: "not installed",
			p:    plugin{command: missing, hint: "Install it with: brew install get-token\x1b[2J"},
			want: fmt.Sprintf("exec plugin %q for user \"u\": command not found: fork/exec %s: no such file or directory\n"+
				"Install it with: brew install get-token[2J", missing, missing),
			check: func(e *ExecError) bool { return e.NotFound },
		},
		{
			name:  "not JSON",
			p:     plugin{mode: "garbage"},
			want:  fmt.Sprintf("exec plugin %q for user \"u\": standard output is not an ExecCredential JSON object", exe),
			check: func(e *ExecError) bool { return e.ExitCode == -1 },
		},
		{
			name:  "another apiVersion",
			p:     plugin{mode: "wrong-version"},
			want:  fmt.Sprintf(`exec plugin %q for user "u": printed apiVersion "client.authentication.k8s.io/v9", want "client.authentication.k8s.io/v1"`, exe),
			check: func(e *ExecError) bool { return true },
		},
		{
			name:  "no status",
			p:     plugin{mode: "no-status"},
			want:  fmt.Sprintf(`exec plugin %q for user "u": printed no status`, exe),
			check: func(e *ExecError) bool { return true },
		},
		{
			name:  "certificate without key",
			p:     plugin{mode: "half-cert", env: []ExecEnvVar{{Name: "PLUGIN_CERT", Value: "testdata/relative/certs/client.crt"}, {Name: "PLUGIN_KEY", Value: "testdata/relative/certs/client.key"}}},
			want:  fmt.Sprintf(`exec plugin %q for user "u": status has clientCertificateData without clientKeyData`, exe),
			check: func(e *ExecError) bool { return true },
		},
		{
			name:  "too much output",
			p:     plugin{mode: "flood"},
			want:  fmt.Sprintf(`exec plugin %q for user "u": printed more than 1048576 bytes`, exe),
			check: func(e *ExecError) bool { return true },
		},
		{
			// The timeout is long enough for the plugin to start and print on a
			// loaded machine (its stderr is checked below); it hangs for a minute.
			name:    "hangs",
			p:       plugin{mode: "hang"},
			timeout: 3 * time.Second,
			want:    fmt.Sprintf(`exec plugin %q for user "u": did not finish within 3s: context deadline exceeded`, exe),
			check:   func(e *ExecError) bool { return errors.Is(e, context.DeadlineExceeded) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr syncBuffer
			cc, _ := setup(t, tt.p, ExecIO{Timeout: tt.timeout, Stderr: &stderr})
			token, err := cc.Credentials.Token(context.Background())
			if err == nil {
				t.Fatalf("Token succeeded, want error %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var ee *ExecError
			if !errors.As(err, &ee) || !tt.check(ee) {
				t.Errorf("error %#v is not the expected *ExecError", err)
			}
			if strings.Contains(err.Error(), "leaked-secret") || token != "" {
				t.Errorf("error %q or token %q shows what the plugin printed", err, token)
			}
			if tt.p.command == "" && !strings.Contains(stderr.String(), "fake plugin run 1") {
				t.Errorf("plugin stderr %q was not passed on", stderr.String())
			}
		})
	}
}

func TestExecWaitRespectsContext(t *testing.T) {
	cc, _ := setup(t, plugin{mode: "hang"}, ExecIO{})
	e := cc.Credentials
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	done := make(chan error, 1)
	go func() {
		_, err := e.Token(ctxA)
		done <- err
	}()
	deadline := time.Now().Add(time.Minute)
	for len(e.running) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the plugin run did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctxB, cancelB := context.WithCancel(context.Background())
	cancelB()
	if _, err := e.Token(ctxB); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting caller with a cancelled context: error %v, want context.Canceled", err)
	}
	cancelA()
	select {
	case err := <-done:
		var ee *ExecError
		if !errors.As(err, &ee) || ee.Reason != "stopped" || !errors.Is(err, context.Canceled) {
			t.Errorf("running caller: error %v, want an ExecError \"stopped\" wrapping context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("cancelling the context did not stop the plugin")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// newClientCert writes a client certificate signed by ca and its key as PEM
// files, for the plugin to print.
func newClientCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
