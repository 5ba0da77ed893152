package compat

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
)

// TestServePrintedLinesWork runs the podwatch watch and kubectl lines that
// `podwatch serve` prints at startup as a user copies them, word for word
// (the program aside: the binaries under test) and with no kubeconfig,
// against the served lifecycle fixture: each must show the recording's
// last change, shop/web-4 created, at resourceVersion 230.
func TestServePrintedLinesWork(t *testing.T) {
	dir := filepath.Join(repoRoot, "testdata", "fixtures", "lifecycle")
	for _, tool := range []string{"kubectl", "podwatch"} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			srv := startServe(t, dir, "--speed", "2")
			srv.waitLog(t, "\n  "+tool+" ")
			words := printedLine(t, srv.log.String(), tool)
			switch tool {
			case "kubectl":
				run := runKubectlLines(t, kubectlPath(t, cluster.Kubectl), words[1:], convergeBound, func(lines []string) bool {
					for _, r := range kubectlRows(t, lines) {
						if r.key == "shop/web-4" {
							return true
						}
					}
					return false
				})
				if run.exited || !strings.Contains(strings.Join(run.printed, "\n"), "web-4") {
					t.Fatalf("%q printed no shop/web-4 within %v (exited %t: %v):\n%s\nkubectl said:\n%s",
						words, convergeBound, run.exited, run.err, strings.Join(run.printed, "\n"), run.stderr)
				}
			case "podwatch":
				const want = "ADD api shop/web-4 Pending node-a 230" // its columns, spaced as they come
				if printed, ok := runPodwatchUntil(t, words[1:], want); !ok {
					t.Fatalf("%q printed no %q within %v:\n%s", words, want, convergeBound, printed)
				}
			}
		})
	}
}

// printedLine is the command line for tool that serve printed, as words;
// the bundled fixtures' lines need no shell quoting, which this reader
// does not undo.
func printedLine(t *testing.T, log, tool string) []string {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "  "+tool+" ") {
			if strings.ContainsAny(line, `'"\`) {
				t.Fatalf("the printed line %q is quoted", line)
			}
			return strings.Fields(line)
		}
	}
	t.Fatalf("serve printed no %s line:\n%s", tool, log)
	return nil
}

// runPodwatchUntil runs the podwatch binary with args, no kubeconfig of
// the user's in reach, until it prints a line holding want, its runs of
// spaces taken as one (or convergeBound passes), and returns what it
// printed.
func runPodwatchUntil(t *testing.T, args []string, want string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), convergeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, podwatchBin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start podwatch: %v", err)
	}
	var printed strings.Builder
	found := false
	for sc := bufio.NewScanner(out); !found && sc.Scan(); {
		printed.WriteString(sc.Text() + "\n")
		found = strings.Contains(strings.Join(strings.Fields(sc.Text()), " "), want)
	}
	cancel()
	cmd.Wait()
	return printed.String() + "stderr:\n" + stderr.String(), found
}
