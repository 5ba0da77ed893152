package rest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/podwatch/podwatch/internal/resthook"
)

// TestRoundTripperSendsTheClientsCredential: a request forwarded through
// resthook.Forwarder carries the client's token, read from its file as the
// client's own requests do (a rotated token is sent from then on), and
// never the Authorization it came with; the caller's request is left as
// it was.
func TestRoundTripperSendsTheClientsCredential(t *testing.T) {
	seen := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("first-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Config{Host: srv.URL, BearerTokenFile: file})
	if err != nil {
		t.Fatal(err)
	}
	rt := resthook.Forwarder(c)
	send := func() string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/pods", nil)
		req.Header.Set("Authorization", "Bearer someone-elses")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("RoundTrip: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := req.Header.Get("Authorization"); got != "Bearer someone-elses" {
			t.Fatalf("the caller's request was changed: Authorization %q", got)
		}
		return <-seen
	}
	if got := send(); got != "Bearer first-token" {
		t.Fatalf("sent Authorization %q, want the client's token", got)
	}
	if err := os.WriteFile(file, []byte("rotated-token-longer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := send(); got != "Bearer rotated-token-longer" {
		t.Fatalf("after rotation sent Authorization %q, want the new token", got)
	}
}
