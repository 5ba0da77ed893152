package proxy

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/protowire"
)

// wait bounds every wait of these tests; a loaded CI machine is slow.
const wait = 30 * time.Second

// startProxy serves a Proxy in front of upstream, authenticating with token.
func startProxy(t *testing.T, upstream, token string, opts Options) (*Proxy, *httptest.Server) {
	t.Helper()
	client, err := rest.NewClient(rest.Config{Host: upstream, BearerToken: token})
	if err != nil {
		t.Fatalf("rest.NewClient: %v", err)
	}
	opts.Upstream = client.Host()
	opts.Transport = resthook.Forwarder(client)
	p := New(opts)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv
}

func get(t *testing.T, ctx context.Context, u string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp
}

func TestAuthorizationIsTheProxys(t *testing.T) {
	for _, tc := range []struct {
		name, token, want string
	}{
		{"upstream token", "upstream-secret", "Bearer upstream-secret"},
		{"no upstream credential", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan string, 1)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen <- r.Header.Get("Authorization")
				io.WriteString(w, `{"kind":"PodList"}`)
			}))
			defer up.Close()
			_, srv := startProxy(t, up.URL, tc.token, Options{})
			resp := get(t, context.Background(), srv.URL+"/api/v1/pods", http.Header{"Authorization": {"Bearer client-secret"}})
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != `{"kind":"PodList"}` {
				t.Fatalf("body %q, want the upstream's", body)
			}
			if got := <-seen; got != tc.want {
				t.Fatalf("upstream saw Authorization %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPathQueryAndPrefixForwarded(t *testing.T) {
	seen := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.URL.RequestURI()
	}))
	defer up.Close()
	_, srv := startProxy(t, up.URL+"/prefix", "", Options{})
	resp := get(t, context.Background(), srv.URL+"/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-a", nil)
	resp.Body.Close()
	if got, want := <-seen, "/prefix/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3Dnode-a"; got != want {
		t.Fatalf("upstream got %s, want %s", got, want)
	}
}

// TestStreamsEachRead: the upstream writes its second event only once the
// client has read the first through the proxy, so a proxy that held bytes
// back would never see the second.
func TestStreamsEachRead(t *testing.T) {
	firstRead := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"ADDED"}`+"\n")
		w.(http.Flusher).Flush()
		select {
		case <-firstRead:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, `{"type":"MODIFIED"}`+"\n")
	}))
	defer up.Close()
	_, srv := startProxy(t, up.URL, "", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp := get(t, ctx, srv.URL+"/api/v1/pods?watch=true", nil)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i, want := range []string{"ADDED", "MODIFIED"} {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("event %d: %v (the proxy held it back)", i+1, err)
		}
		if !strings.Contains(line, want) {
			t.Fatalf("event %d is %q, want %s", i+1, line, want)
		}
		if i == 0 {
			close(firstRead)
		}
	}
}

func TestUnforwardableGetsStatus(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close() // nothing listens there now
	var logged []string
	_, srv := startProxy(t, dead, "upstream-secret", Options{ErrorLog: func(c Client, r *http.Request, err error) {
		logged = append(logged, err.Error())
	}})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp := get(t, ctx, srv.URL+"/api/v1/pods", nil)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", resp.StatusCode)
	}
	var st struct{ Kind, Status, Reason, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("decode the Status: %v", err)
	}
	if st.Kind != "Status" || st.Status != "Failure" || st.Reason != "ServiceUnavailable" {
		t.Fatalf("got %+v, want a ServiceUnavailable Status", st)
	}
	if strings.Contains(st.Message, "upstream-secret") {
		t.Fatalf("the Status gives the upstream token away: %q", st.Message)
	}
	if len(logged) != 1 {
		t.Fatalf("logged %d failures, want 1", len(logged))
	}
}

// TestSlowClientHoldsBackUpstream: a client that never reads its watch
// stops the proxy reading from the server: the proxy reads only what the
// sockets on the way can hold, far less than the server would send, and
// never holds more than its buffer.
func TestSlowClientHoldsBackUpstream(t *testing.T) {
	const total = 512 << 20 // far more than any socket buffers
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(`{"type":"ADDED","object":{}}`+"\n", 1024))
		for sent := 0; sent < total; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	const bound = 16 << 10
	p, srv := startProxy(t, up.URL, "", Options{BufferSize: bound})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp := get(t, ctx, srv.URL+"/api/v1/pods?watch=true", nil)
	defer resp.Body.Close()
	// Read nothing; wait until the proxy stops reading from the server.
	last, still := int64(-1), 0
	for still < 20 {
		select {
		case <-ctx.Done():
			t.Fatalf("the proxy never stopped reading from the server: %+v", p.Stats())
		case <-time.After(50 * time.Millisecond):
		}
		st := p.Stats()
		if st.FromServer >= total {
			t.Fatalf("the proxy read the whole %d bytes from the server for a client that reads nothing", total)
		}
		if st.FromServer == last {
			still++
		} else {
			last, still = st.FromServer, 0
		}
	}
	st := p.Stats()
	if st.MaxBuffered > bound {
		t.Fatalf("a stream held %d bytes in the proxy, want at most %d", st.MaxBuffered, bound)
	}
	if st.FromServer > total/4 {
		t.Fatalf("read %d bytes from the server for a client that reads nothing", st.FromServer)
	}
	t.Logf("held back after %d bytes from the server (%d to the client's socket)", st.FromServer, st.ToClients)
}

// TestClientCancelEndsUpstream: cancelling a client's watch closes the
// request to the server.
func TestClientCancelEndsUpstream(t *testing.T) {
	started, ended := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		close(ended)
	}))
	defer up.Close()
	p, srv := startProxy(t, up.URL, "", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	resp := get(t, ctx, srv.URL+"/api/v1/pods?watch=true", nil)
	defer resp.Body.Close()
	timeout := time.After(wait)
	select {
	case <-started:
	case <-timeout:
		t.Fatal("the watch never reached the server")
	}
	cancel()
	select {
	case <-ended:
	case <-timeout:
		t.Fatal("the server's request outlived the client's")
	}
	done := make(chan struct{})
	go func() { p.Wait(); close(done) }()
	select {
	case <-done:
	case <-timeout:
		t.Fatal("the proxy's handler outlived the client's request")
	}
}

func TestClientsToldApart(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	var made []string
	p, srv := startProxy(t, up.URL, "", Options{ForClient: func(c Client, next http.RoundTripper) http.RoundTripper {
		made = append(made, c.Name)
		return next
	}})
	for _, ua := range []string{"kubectl/v1.37.2 (linux/amd64)", "kubelet/v1.37.2", "kubectl/v1.37.2 (linux/amd64)", "kubectl/v1.37.2 (linux:amd64)"} {
		resp := get(t, context.Background(), srv.URL+"/api", http.Header{"User-Agent": {ua}})
		resp.Body.Close()
	}
	want := []string{"127.0.0.1_kubectl_v1.37.2__linux_amd64", "127.0.0.1_kubelet_v1.37.2", "127.0.0.1_kubectl_v1.37.2__linux_amd64-2"}
	if strings.Join(made, " ") != strings.Join(want, " ") {
		t.Fatalf("clients %q, want %q", made, want)
	}
	if n := len(p.Clients()); n != 3 {
		t.Fatalf("%d clients, want 3", n)
	}
}

// TestBodiesDecoded: a client asking for gzip gets the body decoded, so
// that the layers of ForClient (trace, recorder) read the events as sent.
func TestBodiesDecoded(t *testing.T) {
	const body = `{"kind":"PodList","items":[]}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, body)
		zw.Close()
	}))
	defer up.Close()
	seen := make(chan string, 1)
	_, srv := startProxy(t, up.URL, "", Options{ForClient: func(c Client, next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				seen <- string(b)
				resp.Body = io.NopCloser(strings.NewReader(string(b)))
			}
			return resp, err
		})
	}})
	resp := get(t, context.Background(), srv.URL+"/api/v1/pods", http.Header{"Accept-Encoding": {"gzip"}})
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" || string(got) != body {
		t.Fatalf("client got %q with Content-Encoding %q, want the body decoded", got, resp.Header.Get("Content-Encoding"))
	}
	if b := <-seen; b != body {
		t.Fatalf("the client's layers read %q, want the body decoded", b)
	}
}

// TestUnforwardableStatusInProtobuf: a client that prefers protobuf (the
// kubelet) gets the Status as the apiserver would send it, an envelope.
func TestUnforwardableStatusInProtobuf(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	_, srv := startProxy(t, dead, "", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	resp := get(t, ctx, srv.URL+"/api/v1/pods", http.Header{"Accept": {"application/vnd.kubernetes.protobuf,application/json"}})
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" {
		t.Fatalf("got %d %q, want 503 in protobuf", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	u, err := protowire.ParseEnvelope(body, 0)
	if err != nil || u.Kind != "Status" {
		t.Fatalf("envelope %+v, %v; want a Status", u, err)
	}
}
