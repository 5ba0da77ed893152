package cli

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// TestHTTP2Flags checks that the HTTP/2 flags reach the connection: against a
// server that speaks HTTP/2, requests come over HTTP/2 unless --disable-http2.
func TestHTTP2Flags(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		name      string
		args      []string
		wantProto string
		wantCode  int
		wantErr   string
	}{
		{name: "default", wantProto: "HTTP/2.0"},
		{name: "ping settings", args: []string{"--http2-read-idle-timeout", "5s", "--http2-ping-timeout", "2s"}, wantProto: "HTTP/2.0"},
		{name: "disable-http2", args: []string{"--disable-http2"}, wantProto: "HTTP/1.1"},
		{name: "zero read idle", args: []string{"--http2-read-idle-timeout", "0s"}, wantCode: base.ExitUsage, wantErr: "--http2-read-idle-timeout 0s: must be positive"},
		{name: "negative ping timeout", args: []string{"--http2-ping-timeout", "-1s"}, wantCode: base.ExitUsage, wantErr: "--http2-ping-timeout -1s: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := startFakeAPI(t)
			var mu sync.Mutex
			var protos []string
			// The fake apiserver's handler behind a server that offers HTTP/2; all
			// httptest servers share one certificate, so api's CA file trusts it.
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				protos = append(protos, r.Proto)
				mu.Unlock()
				api.serve(w, r)
			}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.EnableHTTP2 = true
			srv.StartTLS()
			defer srv.Close()
			args := append([]string{"watch", "--node", node1, "--max-events", "1",
				"--server", srv.URL, "--certificate-authority", api.caFile, "--token", clitest.Token}, tt.args...)
			r := run(t, args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if tt.wantErr != "" {
				if !strings.Contains(r.stderr, tt.wantErr) {
					t.Fatalf("stderr %q, want it to contain %q", r.stderr, tt.wantErr)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if len(protos) == 0 {
				t.Fatalf("no request reached the server")
			}
			for i, p := range protos {
				if p != tt.wantProto {
					t.Fatalf("request %d came over %s, want %s", i, p, tt.wantProto)
				}
			}
		})
	}
}
