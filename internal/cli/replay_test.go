package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fixture"
)

// recordFixture records a watch of node-1 against the scripted apiserver and
// returns the fixture's folder and the apiserver.
func recordFixture(t *testing.T, extra ...string) (string, *fakeAPI) {
	t.Helper()
	api := startFakeAPI(t)
	dir := filepath.Join(t.TempDir(), "fixture")
	args := append([]string{"record", "--out", dir, "--node", node1, "--max-events", node1Count}, extra...)
	r := mustRun(t, append(args, api.connArgs()...)...)
	checkGolden(t, "text.golden", r.stdout)
	// The closing line on what the run holds, then where the recording went.
	want := `^podwatch: holding \d+ pods? at resourceVersion \d+; 0 relists, 0 backoffs, no change missed\n` +
		`podwatch: wrote the recording, \d+ exchanges?, to ` + regexp.QuoteMeta(filepath.Join(dir, fixture.FileName)) + `\n$`
	if !regexp.MustCompile(want).MatchString(r.stderr) {
		t.Fatalf("stderr: got %q, want the closing line and the recording's file", r.stderr)
	}
	return dir, api
}

func loadFixture(t *testing.T, dir string) (*fixture.Recording, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, fixture.FileName))
	if err != nil {
		t.Fatalf("read the fixture: %v", err)
	}
	rec, err := fixture.Parse(data)
	if err != nil {
		t.Fatalf("parse the fixture: %v", err)
	}
	return rec, data
}

func TestRecord(t *testing.T) {
	clitest.Isolate(t)
	dir, api := recordFixture(t)
	rec, data := loadFixture(t, dir)
	for _, secret := range []string{clitest.Token, "Authorization", "Bearer"} {
		if strings.Contains(string(data), secret) {
			t.Fatalf("the fixture holds %q", secret)
		}
	}
	if len(rec.Exchanges) != 1 {
		t.Fatalf("got %d exchanges, want 1 (the watch list)", len(rec.Exchanges))
	}
	ex := rec.Exchanges[0]
	if got := ex.Request.Query.Get("sendInitialEvents"); got != "true" {
		t.Fatalf("recorded request %s %v: sendInitialEvents=%q, want true", ex.Request.Path, ex.Request.Query, got)
	}
	var body strings.Builder
	for _, c := range ex.Response.Chunks {
		body.Write(c.Data)
	}
	if diff := cmp.Diff(strings.Join(api.Sent(), "\n")+"\n", body.String()); diff != "" {
		t.Fatalf("recorded body differs from the sent one (-sent +recorded):\n%s", diff)
	}
	if !strings.Contains(rec.Comment, "spec.nodeName=node-1") {
		t.Fatalf("comment %q does not describe the watch", rec.Comment)
	}
}

// TestReplay replays recorded fixtures inside the process: the output is
// the one the live watch printed, and the command ends by itself.
func TestReplay(t *testing.T) {
	clitest.Isolate(t)
	watchList, _ := recordFixture(t)
	paged, _ := recordFixture(t, "--watch-list=false", "--chunk-size", "1")
	if rec, _ := loadFixture(t, paged); len(rec.Exchanges) != 3 {
		t.Fatalf("paged fixture: got %d exchanges, want 3 (two list pages and a watch)", len(rec.Exchanges))
	}
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"watch list", []string{"--replay", watchList, "--speed", "0"}, "text.golden"},
		{"watch list as recorded", []string{"--replay", watchList}, "text.golden"},
		{"watch list, json", []string{"--replay", watchList, "--speed", "0", "-o", "json"}, "json.golden"},
		{"watch list, snapshot", []string{"--replay", watchList, "--speed", "0", "--mode", "snapshot"}, "text-snapshot.golden"},
		{"watch list, events", []string{"--replay", watchList, "--speed", "0", "--events", "-o", "json"}, "events-json.golden"},
		{"watch list, max events", []string{"--replay", watchList, "--speed", "0", "--max-events", "2"}, "text-max2.golden"},
		{"paged list", []string{"--replay", paged, "--speed", "0"}, "text.golden"},
		{"paged list, events", []string{"--replay", paged, "--speed", "0", "--events", "-o", "json"}, "events-json-list.golden"},
		{"paged list, flags as recorded", []string{"--replay", paged, "--speed", "0", "--node", node1, "--watch-list=false", "--chunk-size", "1"}, "text.golden"},
		{"recording file", []string{"--replay", filepath.Join(watchList, fixture.FileName), "--speed", "0"}, "text.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, append([]string{"watch"}, tt.args...)...)
			checkQuietEnd(t, r.stderr)
			checkGolden(t, tt.golden, r.stdout)
		})
	}
}

// A CBOR client of the replay server is answered in CBOR from the JSON
// recording and prints what a JSON client prints, equal as JSON: CBOR
// keeps no member order (the apiserver's own varies from item to item).
func TestReplayCBOR(t *testing.T) {
	clitest.Isolate(t)
	watchList, _ := recordFixture(t)
	paged, _ := recordFixture(t, "--watch-list=false", "--chunk-size", "1")
	for _, tt := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"watch list, json", []string{"--replay", watchList, "-o", "json"}, "json.golden"},
		{"paged list, events", []string{"--replay", paged, "--events", "-o", "json"}, "events-json-list.golden"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, append([]string{"watch", "--speed", "0", "--content-type", "cbor"}, tt.args...)...)
			checkQuietEnd(t, r.stderr)
			want, err := os.ReadFile(filepath.Join("testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(jsonLines(t, string(want)), jsonLines(t, r.stdout)); d != "" {
				t.Errorf("output differs from %s as JSON (-want +got):\n%s", tt.golden, d)
			}
		})
	}
}

// jsonLines reads each line of out as a JSON value.
func jsonLines(t *testing.T, out string) []any {
	t.Helper()
	var vs []any
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestReplayFailures(t *testing.T) {
	clitest.Isolate(t)
	dir, _ := recordFixture(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing fixture", []string{"--replay", filepath.Join(dir, "nope")}, "nope"},
	}
	// A node the recording holds no pods for is refused before the first
	// request: the fixture server would answer every retry with a 400.
	r := run(t, "watch", "--replay", dir, "--node", "node-9")
	if r.code != base.ExitUsage || !strings.Contains(r.stderr, "no pods for /api/v1/pods fieldSelector=spec.nodeName=node-9, only for /api/v1/pods fieldSelector=spec.nodeName=") {
		t.Fatalf("--node node-9: exit %d, want %d naming both scopes; stderr:\n%s", r.code, base.ExitUsage, r.stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"watch"}, tt.args...)...)
			if r.code != base.ExitError {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, base.ExitError, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("stderr: got %q, want one line saying %q", r.stderr, tt.want)
			}
		})
	}
}

// TestServe serves a recorded fixture and watches it as a cluster.
func TestServe(t *testing.T) {
	clitest.Isolate(t)
	dir, _ := recordFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	served := make(chan int, 1)
	go func() {
		served <- testEnv(stdout, stderr).Run(ctx, []string{"serve", dir, "--addr", "127.0.0.1:0", "--speed", "0"})
	}()
	if err := stderr.WaitFor(" on http://"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`on (http://[0-9.:]+)\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
	}
	url := m[1]

	r := mustRun(t, "watch", "--server", url, "--node", node1, "--max-events", node1Count)
	checkGolden(t, "text.golden", r.stdout)
	if err := stderr.WaitFor("the recording has been played to its end"); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get(url + "/api/v1/nodes")
	if err != nil {
		t.Fatalf("GET nodes: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "no recorded exchange matches GET /api/v1/nodes") {
		t.Fatalf("unrecorded request: got %d %s, want 404 saying so", resp.StatusCode, body)
	}

	cancel()
	select {
	case code := <-served:
		if code != 0 {
			t.Fatalf("serve: exit %d, want 0; stderr:\n%s", code, stderr)
		}
	case <-time.After(clitest.Wait):
		t.Fatalf("serve did not stop within %s", clitest.Wait)
	}
	if !strings.Contains(stderr.String(), "no recorded exchange matched GET /api/v1/nodes") {
		t.Fatalf("serve did not report the unmatched request:\n%s", stderr)
	}
	if stdout.String() != "" {
		t.Fatalf("serve stdout: got %q, want nothing", stdout)
	}
}
