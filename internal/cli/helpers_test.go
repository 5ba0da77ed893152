package cli

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// quietEnd is all a run with no trace on stderr, and nothing to warn of,
// writes there: its closing line, on a run that never relisted nor backed
// off.
var quietEnd = regexp.MustCompile(`^podwatch: holding \d+ pods? at resourceVersion \d+; 0 relists, 0 backoffs, no change missed\n$`)

// textRows are the cells of the lines of watch's text output, the header
// left out: lines laid out by different widths compare equal.
func textRows(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] != "OP" && f[0] != "EVENT" {
			rows = append(rows, f)
		}
	}
	return rows
}

// checkQuietEnd wants stderr to hold the closing line of a quiet run, and
// nothing else.
func checkQuietEnd(t *testing.T, stderr string) {
	t.Helper()
	if !quietEnd.MatchString(stderr) {
		t.Errorf("stderr: got %q, want only the closing line of a run without warnings", stderr)
	}
}

func testEnv(stdout, stderr *clitest.SyncBuffer) Env {
	return Env{
		Stdout:           stdout,
		Stderr:           stderr,
		Now:              func() time.Time { return clitest.Seen },
		Hostname:         func() (string, error) { return "Node-1", nil },
		StderrIsTerminal: func() bool { return false },
	}
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the command to its end, failing the test if it does not end.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runCtx(t, context.Background(), clitest.NewSyncBuffer(), clitest.NewSyncBuffer(), args...)
}

func runCtx(t *testing.T, ctx context.Context, stdout, stderr *clitest.SyncBuffer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- testEnv(stdout, stderr).Run(ctx, args) }()
	select {
	case code := <-done:
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	case <-time.After(clitest.Wait):
		cancel()
		<-done
		t.Fatalf("podwatch %s did not end within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), clitest.Wait, stdout, stderr)
		return result{}
	}
}

// mustRun runs the command and requires exit status 0.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("podwatch %s: exit %d, want 0\nstderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Fatalf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

// runUntilRetry runs the command until its stderr says it will retry after
// a failure holding want, then ends its ctx as Ctrl-C would; the command
// must then exit 0.
func runUntilRetry(t *testing.T, want string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	go func() {
		if err := stderr.WaitFor(want); err == nil {
			stderr.WaitFor("; retrying in ")
		}
		cancel()
	}()
	r := runCtx(t, ctx, stdout, stderr, args...)
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "; retrying in ") {
		t.Fatalf("podwatch %s: exit %d, want 0 after a retry of a failure naming %q\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stderr)
	}
	return r
}
