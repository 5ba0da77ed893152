package session

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
)

// TestUnknownHost: a host DNS does not know at the first connection ends
// the run with what to change; once the host has answered, its name
// failing to resolve is retried, as a kubelet retries it. DNS is faked by
// the transport's dialer, which answers as net.Dialer does for a name
// that does not exist.
func TestUnknownHost(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each request dials anew, and so looks the name up again.
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`)
	}))
	defer api.Close()
	const host = "podwatch-api.test"
	_, port, _ := net.SplitHostPort(api.Listener.Addr().String())
	watchUntil := func(t *testing.T, resolves int64, stop string) (error, string) {
		t.Helper()
		var dials atomic.Int64
		cfg := rest.Config{Host: "http://" + net.JoinHostPort(host, port)}
		resthook.On(&cfg).WrapDial = func(dial resthook.DialFunc) resthook.DialFunc {
			return func(ctx context.Context, network, _ string) (net.Conn, error) {
				if dials.Add(1) > resolves {
					return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
				}
				return dial(ctx, network, api.Listener.Addr().String())
			}
		}
		c := base.NewCommand("watch", "")
		var f Flags
		f.Register(c, false)
		if _, err := c.Parse(io.Discard, []string{"--node", "node-1", "--watch-list=false"}); err != nil {
			t.Fatal(err)
		}
		if err := f.Check(c); err != nil {
			t.Fatal(err)
		}
		stderr := clitest.NewSyncBuffer()
		e := base.Env{Stderr: stderr, StderrIsTerminal: func() bool { return false }}.WithDefaults()
		p, err := f.Plan(e)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- Run(ctx, e, &f, p, cfg, Extras{}) }()
		if stop != "" {
			if err := stderr.WaitFor(stop); err != nil {
				t.Error(err)
			}
			cancel()
		}
		select {
		case err := <-done:
			return err, stderr.String()
		case <-time.After(clitest.Wait):
			cancel()
			<-done
			t.Fatalf("the watch did not end within %s; stderr:\n%s", clitest.Wait, stderr)
			return nil, ""
		}
	}

	t.Run("at the first connection", func(t *testing.T) {
		err, stderr := watchUntil(t, 0, "")
		if err == nil || !rest.IsHostNotFound(err) || !strings.HasSuffix(err.Error(), "; DNS does not know the host "+host+
			": check the server's address (--server, or the server of the kubeconfig's cluster)") {
			t.Fatalf("Run: %v, want the unknown host and what to change", err)
		}
		if stderr != "" {
			t.Fatalf("stderr %q, want nothing: the failure is the command's error", stderr)
		}
	})
	t.Run("after the host answered", func(t *testing.T) {
		// The list is answered; the watch after it finds the name gone.
		err, stderr := watchUntil(t, 1, "no such host; retrying in ")
		if err != nil {
			t.Fatalf("Run: %v after Ctrl-C, want nil: the watch was retried; stderr:\n%s", err, stderr)
		}
	})
}
