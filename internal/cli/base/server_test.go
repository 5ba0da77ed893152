package base

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/rest/protowire"
)

// TestShuttingDownAnswersStatus: a request that reaches the server (the
// proxy's, serve's, a replay's) once it has begun to close gets a 503
// Status in the form its client asked for, never the handler and never a
// plain-text body a Kubernetes client cannot read.
func TestShuttingDownAnswersStatus(t *testing.T) {
	served := 0
	fs, err := StartServer("127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served++
	}), false)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	fs.refuse() // what close does first, before it closes the connections
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	get := func(path, accept string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fs.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	t.Run("json", func(t *testing.T) {
		resp, body := get("/api/v1/pods?watch=true", "application/json")
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("got %d %q, want 503 in JSON: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var st struct {
			Kind, Reason string
			Code         int
		}
		if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" || st.Reason != "ServiceUnavailable" || st.Code != 503 {
			t.Fatalf("body %s (%v), want a ServiceUnavailable Status", body, err)
		}
	})
	for _, path := range []string{"/api/v1/pods", "/api/v1/pods?watch=true"} {
		t.Run("protobuf "+path, func(t *testing.T) {
			resp, body := get(path, "application/vnd.kubernetes.protobuf,application/json")
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" {
				t.Fatalf("got %d %q, want 503 in protobuf: %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			u, err := protowire.ParseEnvelope(body, 0)
			if err != nil || u.Kind != "Status" || !strings.Contains(string(u.Raw), "ServiceUnavailable") {
				t.Fatalf("envelope %+v, %v; want a ServiceUnavailable Status", u, err)
			}
			// code (6) 503, as a varint.
			if !strings.Contains(string(u.Raw), "\x30\xf7\x03") {
				t.Fatalf("the Status carries no code 503: % x", u.Raw)
			}
		})
	}
	if served != 0 {
		t.Fatalf("the handler served %d requests after the server began to close", served)
	}
}
