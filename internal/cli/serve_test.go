package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serveFixture runs podwatch serve with args and returns its URL and stderr;
// the server stops when the test ends.
func serveFixture(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := newSyncBuffer()
	served := make(chan int, 1)
	go func() {
		served <- testEnv(newSyncBuffer(), stderr).Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-served:
		case <-time.After(testWait):
			t.Errorf("serve did not stop within %s", testWait)
		}
	})
	if err := stderr.waitFor(" on http://"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`on (http://[0-9.:]+)\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
	}
	return m[1], stderr
}

// The startup line says which flags the fixture was recorded with.
func TestServeSaysHowTheFixtureWasRecorded(t *testing.T) {
	for fixture, want := range map[string]string{
		lifecycleFixture:                     "recorded with --node node-a --watch-list=false --chunk-size 500)",
		"../../testdata/fixtures/watch-list": "recorded with --node node-a --watch-list=true)",
	} {
		_, stderr := serveFixture(t, fixture, "--speed", "0")
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("serve %s: startup line %q lacks %q", fixture, stderr.String(), want)
		}
	}
}

// podwatch watch with its defaults (a streaming watch list, unlike the
// recorded client) against the lifecycle fixture served as recorded reaches
// the recording's final pod: its watch list stays open and carries the
// recorded changes, the watch from before the recorded compaction gets a 410,
// and the relist gets the state after it. The recording reaches it 8.2 s in.
func TestServedFixtureReachesItsFinalStateForADefaultWatch(t *testing.T) {
	isolate(t)
	url, _ := serveFixture(t, lifecycleFixture)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	done := make(chan int, 1)
	go func() {
		done <- testEnv(stdout, stderr).Run(ctx, []string{"watch", "--server", url, "--node", "node-a"})
	}()
	deadline := time.After(25 * time.Second)
	for !strings.Contains(stdout.String(), "shop/web-4 phase=Pending node=node-a rv=230") {
		select {
		case <-deadline:
			t.Fatalf("no shop/web-4@230 within 25s; stdout:\n%s\nstderr:\n%s", stdout, stderr)
		case code := <-done:
			t.Fatalf("watch ended (exit %d) before shop/web-4@230; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatalf("watch did not stop within %s", testWait)
	}
}
