package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// The text output's flags, through the command: --no-headers is the golden
// output without its header line, --timestamps each of its lines after
// the time it was printed (the injected clock's), the header's after TIME.
// Both apply to text only.
func TestTextOutputFlags(t *testing.T) {
	clitest.Isolate(t)
	golden, err := os.ReadFile(filepath.Join("testdata", "text.golden"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(golden), "\n")
	stamped := "TIME                       " + lines[0]
	for _, l := range lines[1:] {
		if l != "" {
			stamped += "2026-12-02T12:00:00.000Z   " + l
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no headers", []string{"--no-headers"}, strings.Join(lines[1:], "")},
		{"timestamps", []string{"--timestamps"}, stamped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := startFakeAPI(t)
			args := append([]string{"watch", "--node", node1, "--max-events", node1Count}, api.connArgs()...)
			r := mustRun(t, append(args, tc.args...)...)
			if d := cmp.Diff(tc.want, r.stdout); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
	for _, args := range [][]string{{"--no-headers", "-o", "json"}, {"--timestamps", "-o", "yaml"}} {
		r := run(t, append([]string{"watch", "--replay", fixturePath("lifecycle")}, args...)...)
		if r.code != base.ExitUsage || !strings.Contains(r.stderr, args[0]+" applies to text output") {
			t.Errorf("%v: exit %d, stderr %q; want %d and a word on text output", args, r.code, r.stderr, base.ExitUsage)
		}
	}
}

// podwatch watch --help says what each operation of the text output means,
// DELETE's two lines for one graceful delete included, and names the
// columns and the text output's flags.
func TestWatchHelpTellsTheOperations(t *testing.T) {
	r := mustRun(t, "watch", "--help")
	for _, want := range []string{
		"ADD        a pod new to the kubelet",
		"UPDATE     its spec, labels, annotations or deletion fields changed",
		"RECONCILE  only its status changed",
		"DELETE     it is being deleted gracefully",
		"A graceful delete prints DELETE\n                       twice",
		"REMOVE     the pod is gone from its source",
		"OP      ", "SOURCE  ", "POD     namespace/name", "RV (resourceVersion)", "NOTE    deleting",
		"--no-headers", "--timestamps",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("watch --help does not say %q", want)
		}
	}
}
