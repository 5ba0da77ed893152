package cli

import (
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/probe"
)

// Without --write the probe refuses before connecting anywhere, saying
// what it would write.
func TestProbeNeedsWrite(t *testing.T) {
	clitest.Isolate(t)
	r := run(t, "probe", "--server", "http://127.0.0.1:1", "--node", "n1", "--every", "2s")
	if r.code != base.ExitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, base.ExitUsage, r.stderr)
	}
	for _, want := range []string{"writes", "default/podwatch-probe-n1", "node n1", probe.Annotation, "every 2s", "--write"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("refusal lacks %q:\n%s", want, r.stderr)
		}
	}
}
