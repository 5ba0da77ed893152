package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// serveFixture runs podwatch serve with args and returns its URL and stderr;
// the server stops when the test ends.
func serveFixture(t *testing.T, args ...string) (string, *clitest.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := clitest.NewSyncBuffer()
	served := make(chan int, 1)
	go func() {
		served <- testEnv(clitest.NewSyncBuffer(), stderr).Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-served:
		case <-time.After(clitest.Wait):
			t.Errorf("serve did not stop within %s", clitest.Wait)
		}
	})
	if err := stderr.WaitFor(" on http://"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`on (http://[0-9.:]+)\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
	}
	// The lines to copy come after the address, which serve must know
	// first; kubectl's is the last.
	if !slices.Contains(args, "--simulate") {
		if err := stderr.WaitFor(" --watch\n"); err != nil {
			t.Fatal(err)
		}
	}
	return m[1], stderr
}

// At startup serve prints the podwatch watch and kubectl lines that watch
// the fixture as it was recorded: the recorded node, initial state, page
// size and wire format, and the address it listens on; and no line of its
// wraps in a terminal of 120 columns.
func TestServeSaysHowToWatchAsRecorded(t *testing.T) {
	for fixture, want := range map[string][]string{
		lifecycleFixture: {"podwatch watch --server URL --node node-a --watch-list=false --chunk-size 500",
			"kubectl --server URL get pods -A --field-selector spec.nodeName=node-a --watch"},
		"../../testdata/fixtures/watch-list": {"podwatch watch --server URL --node node-a --watch-list=true"},
		"../../testdata/fixtures/lifecycle-protobuf": {
			"podwatch watch --server URL --node node-a --watch-list=false --chunk-size 500 --content-type protobuf"},
	} {
		url, stderr := serveFixture(t, fixture, "--speed", "0")
		if err := stderr.WaitFor("to play it again.\n"); err != nil { // the last startup line
			t.Fatal(err)
		}
		said := strings.ReplaceAll(stderr.String(), url, "URL")
		for _, w := range want {
			if !strings.Contains(said, "\n  "+w+"\n") {
				t.Errorf("serve %s: startup lines lack %q:\n%s", fixture, w, said)
			}
		}
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			// A line to copy stays whole, however long.
			if copied := strings.HasPrefix(line, "  podwatch watch ") || strings.HasPrefix(line, "  kubectl "); !copied && len(line) > 120 {
				t.Errorf("serve %s: a line of %d columns: %q", fixture, len(line), line)
			}
		}
	}
}

// printedWatch is the podwatch watch line serve printed, as arguments
// after the program's name.
func printedWatch(t *testing.T, said string) []string {
	t.Helper()
	for _, line := range strings.Split(said, "\n") {
		if rest, ok := strings.CutPrefix(line, "  podwatch watch "); ok {
			if strings.ContainsAny(rest, `'"\`) {
				t.Fatalf("the printed line %q is quoted; this test splits words at spaces only", line)
			}
			return append([]string{"watch"}, strings.Fields(rest)...)
		}
	}
	t.Fatalf("serve printed no podwatch watch line:\n%s", said)
	return nil
}

// runUntil runs podwatch with args until stop, which waits for it to end
// and returns its exit code; the test fails if it does not end in time.
func runUntil(t *testing.T, args []string) (stdout, stderr *clitest.SyncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	done := make(chan int, 1)
	go func() { done <- testEnv(stdout, stderr).Run(ctx, args) }()
	stopped := false
	stop = func() int {
		t.Helper()
		cancel()
		if stopped {
			return 0
		}
		stopped = true
		select {
		case code := <-done:
			return code
		case <-time.After(clitest.Wait):
			t.Fatalf("podwatch %v did not stop within %s", args, clitest.Wait)
			return 0
		}
	}
	t.Cleanup(func() { stop() })
	return stdout, stderr, stop
}

// waitLines waits until out holds n lines.
func waitLines(t *testing.T, out *clitest.SyncBuffer, n int, what string) {
	t.Helper()
	deadline := time.After(clitest.Wait)
	for strings.Count(out.String(), "\n") < n {
		select {
		case <-deadline:
			t.Fatalf("%s: %d lines within %s, want %d:\n%s", what, strings.Count(out.String(), "\n"), clitest.Wait, n, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// lifecycleUpdates is what a client of a fresh replay of lifecycle prints:
// every update the recording holds.
func lifecycleUpdates(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "trace-lifecycle.stdout.golden"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Finding 1 of issue 29, the wrong turn first: podwatch watch without
// --node asks serve for the host's pods, is refused with a 400 that says
// what to use, and gives up saying so; serve says once what it refused, and
// neither starts its clock nor says the recording has been played. The
// right client then (the line serve printed) sees every update the
// recording holds, as against a fresh serve, and only then is the
// recording played. At --speed 4 the recording lasts 2 s, and a recorded
// exchange is played up to 2 s after its recorded end: the wrong client
// asks again until 5 s have passed since its first refusal, outlasting
// both, so that had it started the clock the right client would see only
// the final state.
func TestServeKeepsItsRecordingForTheRightClient(t *testing.T) {
	clitest.Isolate(t)
	url, said := serveFixture(t, lifecycleFixture, "--speed", "4")
	const told = "use --node node-a"
	var first time.Time
	for tries := 0; first.IsZero() || time.Since(first) < 5*time.Second; tries++ {
		if tries == 100 {
			t.Fatalf("the wrong client ran %d times in %s", tries, time.Since(first))
		}
		stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
		ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
		code := testEnv(stdout, stderr).Run(ctx, []string{"watch", "--server", url})
		cancel()
		if code != 1 || !strings.Contains(stderr.String(), told) {
			t.Fatalf("the wrong client: exit %d, want 1 telling it to %q:\n%s", code, told, stderr)
		}
		if first.IsZero() {
			first = time.Now()
		}
		time.Sleep(250 * time.Millisecond) // a user reading the message and trying again
	}
	if err := said.WaitFor("refused a client asking for the pods of node node-1 with a 400 that tells it:\n  this recording holds node node-a: " + told); err != nil {
		t.Fatalf("%v:\n%s", err, said)
	}
	if n := strings.Count(said.String(), "refused a client"); n != 1 {
		t.Errorf("serve told of the refusals %d times, want once:\n%s", n, said)
	}
	if strings.Contains(said.String(), "played") {
		t.Fatalf("serve says the recording was played, though only the wrong client asked:\n%s", said)
	}

	want := lifecycleUpdates(t)
	stdout, stderr, stop := runUntil(t, printedWatch(t, said.String()))
	waitLines(t, stdout, strings.Count(want, "\n"), "the right client")
	if err := said.WaitFor("the recording has been played to its end"); err != nil {
		t.Fatalf("%v:\n%s", err, said)
	}
	if code := stop(); code != 0 {
		t.Fatalf("the right client: exit %d; stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Fatalf("the right client after the wrong one (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
}

// serve --loop plays the recording again for a client that comes after its
// end: the second client sees every update, as the first did, where
// without --loop it would get only the final state.
func TestServeLoopPlaysAgain(t *testing.T) {
	clitest.Isolate(t)
	_, said := serveFixture(t, lifecycleFixture, "--speed", "0", "--loop")
	want := lifecycleUpdates(t)
	for play := 1; play <= 2; play++ {
		stdout, stderr, stop := runUntil(t, printedWatch(t, said.String()))
		waitLines(t, stdout, strings.Count(want, "\n"), fmt.Sprintf("the client of play %d", play))
		if err := said.WaitInOrder(slices.Repeat([]string{"the recording has been played to its end; the next client that lists plays it again"}, play)); err != nil {
			t.Fatalf("play %d: %v:\n%s", play, err, said)
		}
		stop()
		if diff := cmp.Diff(want, stdout.String()); diff != "" {
			t.Fatalf("the client of play %d (-want +got):\n%s\nstderr:\n%s", play, diff, stderr)
		}
	}
	if !strings.Contains(said.String(), "playing the recording again from its start (play 2)") {
		t.Errorf("serve did not say it played the recording again:\n%s", said)
	}
}

// podwatch watch with its defaults (a streaming watch list, unlike the
// recorded client) against the lifecycle fixture served as recorded reaches
// the recording's final pod: its watch list stays open and carries the
// recorded changes, the watch from before the recorded compaction gets a 410,
// and the relist gets the state after it. The recording reaches it 8.2 s in.
func TestServedFixtureReachesItsFinalStateForADefaultWatch(t *testing.T) {
	clitest.Isolate(t)
	url, _ := serveFixture(t, lifecycleFixture)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	done := make(chan int, 1)
	go func() {
		done <- testEnv(stdout, stderr).Run(ctx, []string{"watch", "--server", url, "--node", "node-a"})
	}()
	deadline := time.After(25 * time.Second)
	web4 := regexp.MustCompile(`(?m) shop/web-4 +Pending +node-a +230 `)
	for !web4.MatchString(stdout.String()) {
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
	case <-time.After(clitest.Wait):
		t.Fatalf("watch did not stop within %s", clitest.Wait)
	}
}

// serve --simulate serves the model apiserver over HTTP: a watch list gets
// the state and the initial-events-end bookmark, then the churn's changes on
// the same stream; a watch from before the compaction point gets a 410 ERROR
// event and the end of its body.
func TestServeSimulate(t *testing.T) {
	url, _ := serveFixture(t, "--simulate", "--seed", "7")
	ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=60", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	var initial, after int
	bookmarked := false
	for after == 0 {
		var ev struct {
			Type   string
			Object struct {
				Metadata struct{ Annotations map[string]string }
			}
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("after %d initial events (bookmark %t): %v", initial, bookmarked, err)
		}
		switch {
		case ev.Type == "BOOKMARK" && ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true":
			bookmarked = true
		case !bookmarked && ev.Type == "ADDED":
			initial++
		case bookmarked && ev.Type != "BOOKMARK":
			after++
		}
	}
	if initial == 0 {
		t.Fatalf("no initial events before the bookmark")
	}
	resp2, err := http.Get(url + "/api/v1/pods?watch=true&resourceVersion=1")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if err != nil || resp2.StatusCode != 200 || !strings.Contains(string(body), `"type":"ERROR"`) || !strings.Contains(string(body), `"code":410`) {
		t.Fatalf("watch from 1: %d %q (%v), want 200, a 410 ERROR event and the end", resp2.StatusCode, body, err)
	}
}
