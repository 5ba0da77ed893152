package rest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/podwatch/podwatch/internal/resthook"
)

// TestConfigureTransport checks the hook: it gets the transport NewClient
// built, TLS settings included, what it changes takes effect, its error fails
// NewClient, and a caller's own Transport is left alone.
func TestConfigureTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()

	var dials atomic.Int32
	var serverName string
	cfg := Config{Host: srv.URL, TLS: TLSConfig{ServerName: "apiserver.example"}}
	resthook.On(&cfg).ConfigureTransport = func(tr *http.Transport) error {
		serverName = tr.TLSClientConfig.ServerName
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dial(ctx, network, addr)
		}
		return nil
	}
	b, err := mustClient(t, cfg).Get().Resource("pods").Do(context.Background())
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if string(b) != "ok" {
		t.Fatalf("answer %q, want ok", b)
	}
	if serverName != "apiserver.example" {
		t.Errorf("the hook saw ServerName %q, want apiserver.example: not the transport built from the config", serverName)
	}
	if dials.Load() != 1 {
		t.Errorf("the hook's dialer dialled %d times, want 1", dials.Load())
	}

	boom := errors.New("boom")
	failing := Config{Host: srv.URL}
	resthook.On(&failing).ConfigureTransport = func(*http.Transport) error { return boom }
	_, err = NewClient(failing)
	if !errors.Is(err, boom) {
		t.Fatalf("NewClient with a failing hook: got %v, want it to wrap %v", err, boom)
	}

	called := false
	own := Config{Host: srv.URL, Transport: http.DefaultTransport}
	resthook.On(&own).ConfigureTransport = func(*http.Transport) error { called = true; return nil }
	_, err = NewClient(own)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if called {
		t.Fatalf("the hook was called although Config.Transport replaces the built transport")
	}
}
