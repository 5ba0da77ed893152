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

// A run whose trace is not on stderr ends with one line there on what it
// holds, the trace's counts included (relists, backoffs, the changes its
// relists show it missed), then where its trace's files went; a trace on
// stderr ends with its own summary instead.
func TestClosingLine(t *testing.T) {
	clitest.Isolate(t)
	const quiet = "podwatch: holding 2 pods at resourceVersion 230; 1 relist, 2 backoffs, no change missed\n"
	file := filepath.Join(t.TempDir(), "trace.txt")
	for _, tc := range []struct {
		name string
		args []string
		end  string // stderr's last lines
	}{
		{"updates", nil, quiet},
		{"events", []string{"--events"}, quiet},
		{"missed", []string{"--fault", gapFault},
			"podwatch: holding 2 pods at resourceVersion 230; 1 relist, 1 backoff, 2 changes missed across relists (1 skipped, 1 unseen): --trace tells which\n"},
		{"trace in a file", []string{"--trace-file", file}, quiet + "podwatch: wrote the trace to " + file + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, append([]string{"watch", "--replay", fixturePath("lifecycle"), "--speed", "0"}, tc.args...)...)
			if !strings.HasSuffix(r.stderr, tc.end) || strings.Count(r.stderr, "podwatch: holding") != 1 {
				t.Fatalf("stderr:\n%s\nwant it to end with:\n%s", r.stderr, tc.end)
			}
		})
	}
	r := mustRun(t, "watch", "--replay", fixturePath("lifecycle"), "--speed", "0", "--trace")
	if strings.Contains(r.stderr, "podwatch: holding") || !strings.Contains(traceTail(r.stderr), "trace         end after") {
		t.Fatalf("with --trace, stderr ends:\n%s\nwant the trace's summary alone", traceTail(r.stderr))
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
