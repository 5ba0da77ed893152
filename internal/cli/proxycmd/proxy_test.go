package proxycmd

import (
	"io"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/base"
)

// TestCheckListen: a --listen address others can reach is accepted with
// --accept-remote, and then warned of; loopback addresses need no
// --accept-remote. (Checked without listening: tests listen on loopback
// only. TestProxyListenRefusesRemote, in internal/cli, runs the refusal.)
func TestCheckListen(t *testing.T) {
	var b strings.Builder
	c := base.NewCommand("proxy", "")
	if err := checkListen(c, "192.0.2.1:8001", true, base.NewLogger(&b, 0)); err != nil {
		t.Fatalf("--accept-remote: %v", err)
	}
	if !strings.Contains(b.String(), "warning: --listen 192.0.2.1:8001 accepts clients from other hosts") {
		t.Fatalf("no warning for a remote address: %q", b.String())
	}
	for _, local := range []string{"127.0.0.1:0", "localhost:8001", "[::1]:8001"} {
		if err := checkListen(c, local, false, base.NewLogger(io.Discard, 0)); err != nil {
			t.Errorf("%s: %v, want it allowed", local, err)
		}
	}
}
