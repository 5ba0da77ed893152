package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testWait bounds every wait of these tests.
const testWait = 30 * time.Second

// seen is the injected clock: every kubernetes.io/config.seen has this value.
var seen = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// syncBuffer is a concurrency-safe output buffer that can wait for a string.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{})} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the buffer holds sub; it may be called from any
// goroutine.
func (s *syncBuffer) waitFor(sub string) error {
	deadline := time.After(testWait)
	for {
		s.mu.Lock()
		has, ch := strings.Contains(s.b.String(), sub), s.changed
		s.mu.Unlock()
		if has {
			return nil
		}
		select {
		case <-ch:
		case <-deadline:
			return fmt.Errorf("timed out waiting for %q; have:\n%s", sub, s.String())
		}
	}
}

func testEnv(stdout, stderr *syncBuffer) Env {
	return Env{
		Stdout:           stdout,
		Stderr:           stderr,
		Now:              func() time.Time { return seen },
		Hostname:         func() (string, error) { return "Node-1", nil },
		StderrIsTerminal: func() bool { return false },
	}
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

// isolate keeps the user's kubeconfig out of the tests.
func isolate(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-such-kubeconfig"))
}

// run runs the command to its end, failing the test if it does not end.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runCtx(t, context.Background(), newSyncBuffer(), newSyncBuffer(), args...)
}

func runCtx(t *testing.T, ctx context.Context, stdout, stderr *syncBuffer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- testEnv(stdout, stderr).Run(ctx, args) }()
	select {
	case code := <-done:
		return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	case <-time.After(testWait):
		cancel()
		<-done
		t.Fatalf("podwatch %s did not end within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), testWait, stdout, stderr)
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
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	go func() {
		if err := stderr.waitFor(want); err == nil {
			stderr.waitFor("; retrying in ")
		}
		cancel()
	}()
	r := runCtx(t, ctx, stdout, stderr, args...)
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "; retrying in ") {
		t.Fatalf("podwatch %s: exit %d, want 0 after a retry of a failure naming %q\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stderr)
	}
	return r
}
