package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/kubeconfig"
	"github.com/podwatch/podwatch/rest"
)

// runningProxy is a podwatch proxy running in this process.
type runningProxy struct {
	url            string
	stdout, stderr *clitest.SyncBuffer
	cancel         context.CancelFunc
	done           chan int
}

var proxyingRE = regexp.MustCompile(`proxying (https?://[^ ]+) to`)

// startProxyCmd runs podwatch proxy with args and waits until it listens.
func startProxyCmd(t *testing.T, args ...string) *runningProxy {
	t.Helper()
	return startProxyEnv(t, func(*Env) {}, args...)
}

// startProxyEnv is startProxyCmd with the test's Env changed by set.
func startProxyEnv(t *testing.T, set func(*Env), args ...string) *runningProxy {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &runningProxy{stdout: clitest.NewSyncBuffer(), stderr: clitest.NewSyncBuffer(), cancel: cancel, done: make(chan int, 1)}
	env := testEnv(p.stdout, p.stderr)
	set(&env)
	go func() { p.done <- env.Run(ctx, append([]string{"proxy"}, args...)) }()
	t.Cleanup(func() { p.stop(t) })
	if err := p.stderr.WaitFor(" to "); err != nil {
		t.Fatal(err)
	}
	m := proxyingRE.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("no address in the proxy's first line:\n%s", p.stderr)
	}
	p.url = m[1]
	return p
}

// stop cancels the proxy's ctx (Ctrl-C) and returns its exit status.
func (p *runningProxy) stop(t *testing.T) int {
	t.Helper()
	p.cancel()
	select {
	case code := <-p.done:
		p.done <- code // a second stop gets it too
		return code
	case <-time.After(clitest.Wait):
		t.Fatalf("podwatch proxy did not end within %s of Ctrl-C\nstderr:\n%s", clitest.Wait, p.stderr)
		return -1
	}
}

func TestProxyCommandForwardsAndStops(t *testing.T) {
	clitest.Isolate(t)
	const token = "upstream-token-4711"
	auth, proto := make(chan string, 1), make(chan int, 1)
	watching := make(chan struct{})
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		proto <- r.ProtoMajor
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"ADDED","object":{}}`+"\n")
		w.(http.Flusher).Flush()
		close(watching)
		<-r.Context().Done() // a watch that never ends by itself
	}))
	server, ca := startTLSUpstream(t, up)
	p := startProxyCmd(t, "--server", server, "--certificate-authority", ca, "--token", token, "--listen", "127.0.0.1:0")
	req, _ := http.NewRequest(http.MethodGet, p.url+"/api/v1/pods?watch=true", nil)
	req.Header.Set("Authorization", "Bearer client-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET through the proxy: %v", err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "ADDED") {
		t.Fatalf("first read %q, %v; want the ADDED event", buf[:n], err)
	}
	if got := <-auth; got != "Bearer "+token {
		t.Fatalf("the server saw Authorization %q, want the proxy's token", got)
	}
	if got := <-proto; got != 2 {
		t.Fatalf("the proxy spoke HTTP/%d to a server offering HTTP/2", got)
	}
	<-watching
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d after Ctrl-C, want 0\nstderr:\n%s", code, p.stderr)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("the watch went on after the proxy stopped")
	}
	for _, out := range []string{p.stdout.String(), p.stderr.String()} {
		if strings.Contains(out, token) {
			t.Fatalf("the token appears in the output:\n%s", out)
		}
	}
}

// TestProxyListenRefusesRemote: a --listen address others can reach is a
// usage error without --accept-remote (TestCheckListen, in proxycmd, checks
// the warning with it).
func TestProxyListenRefusesRemote(t *testing.T) {
	clitest.Isolate(t)
	r := run(t, "proxy", "--server", "http://127.0.0.1:1", "--listen", "0.0.0.0:0")
	if r.code != base.ExitUsage || !strings.Contains(r.stderr, "--accept-remote") {
		t.Fatalf("exit %d, stderr:\n%s\nwant a usage error naming --accept-remote", r.code, r.stderr)
	}
}

// startTLSUpstream starts up over TLS with HTTP/2 and returns its URL and
// the file of the CA to trust it with.
func startTLSUpstream(t *testing.T, up *httptest.Server) (string, string) {
	t.Helper()
	up.EnableHTTP2 = true
	up.StartTLS()
	t.Cleanup(up.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return up.URL, ca
}

// TestProxyTLS: with --tls the proxy serves HTTP/2 over TLS with a
// certificate made for the run; the CA of --ca-out verifies it, and the
// kubeconfig of --kubeconfig-out is enough for podwatch's own watch.
func TestProxyTLS(t *testing.T) {
	clitest.Isolate(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`)
	}))
	defer up.Close()
	dir := t.TempDir()
	ca, kc := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "kubeconfig")
	p := startProxyCmd(t, "--server", up.URL, "--listen", "127.0.0.1:0", "--tls", "--ca-out", ca, "--kubeconfig-out", kc, "-v", "6")
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("--tls proxy at %s, want https", p.url)
	}
	caPEM, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("--ca-out wrote no certificate: %q", caPEM)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	resp, err := client.Get(p.url + "/api/v1/pods")
	if err != nil {
		t.Fatalf("GET through the TLS proxy, trusting --ca-out: %v", err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Fatalf("got %s %s, want 200 over HTTP/2", resp.Proto, resp.Status)
	}
	if err := p.stderr.WaitFor("GET /api/v1/pods 200 OK"); err != nil {
		t.Fatalf("-v 6 logs no request: %v", err)
	}
	// The kubeconfig alone reaches the cluster through the proxy, as
	// podwatch reads kubeconfigs (kubectl's use is in internal/e2e).
	cc, err := kubeconfig.New(kubeconfig.DefaultRules(kc), kubeconfig.Options{})
	if err != nil {
		t.Fatalf("read --kubeconfig-out: %v", err)
	}
	cfg, err := cc.RESTConfig()
	if err != nil {
		t.Fatalf("--kubeconfig-out: %v", err)
	}
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("rest.NewClient: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
	defer cancel()
	body, err := rc.Get().AbsPath("/api/v1/pods").Do(ctx)
	if err != nil || !strings.Contains(string(body), "PodList") {
		t.Fatalf("list through --kubeconfig-out: %q, %v", body, err)
	}
}

// TestProxyUpgrade: an upgraded connection (kubectl exec, port-forward)
// goes through a traced, recording proxy both ways.
func TestProxyUpgrade(t *testing.T) {
	clitest.Isolate(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" {
			http.Error(w, "want an upgrade", http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		rw.Flush()
		line, err := rw.ReadString('\n')
		if err == nil {
			rw.WriteString("echo: " + line)
			rw.Flush()
		}
	}))
	defer up.Close()
	dir := t.TempDir()
	p := startProxyCmd(t, "--server", up.URL, "--listen", "127.0.0.1:0",
		"--trace-file", filepath.Join(dir, "trace.txt"), "--record", filepath.Join(dir, "rec"))
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(p.url, "http://"), clitest.Wait)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(clitest.Wait))
	io.WriteString(conn, "GET /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the upgrade's answer: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %s, want 101", resp.Status)
	}
	io.WriteString(conn, "ping\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "echo: ping\n" {
		t.Fatalf("through the upgraded connection: %q, %v", line, err)
	}
}
