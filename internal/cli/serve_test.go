package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

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
