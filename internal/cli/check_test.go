package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/check"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// checkWait bounds one run of the battery in these tests.
const checkWait = 4 * time.Minute

// runCheck runs podwatch check with args to its end and returns its exit
// status, stdout and stderr.
func runCheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), checkWait)
	defer cancel()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	done := make(chan int, 1)
	go func() { done <- testEnv(stdout, stderr).Run(ctx, append([]string{"check"}, args...)) }()
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(checkWait + time.Minute):
		t.Fatalf("podwatch check did not end within %s", checkWait+time.Minute)
		return 0, "", ""
	}
}

// outcomes parses -o json output: one object a line.
func outcomes(t *testing.T, out string) map[string]check.Outcome {
	t.Helper()
	m := map[string]check.Outcome{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o check.Outcome
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		m[o.Name] = o
	}
	return m
}

// noneFails requires every check to have been run, none to fail, and
// every one not applicable to say why.
func noneFails(t *testing.T, code int, stdout, stderr string) map[string]check.Outcome {
	t.Helper()
	outs := outcomes(t, stdout)
	for _, n := range check.Names() {
		o, ok := outs[n]
		switch {
		case !ok:
			t.Errorf("%s: not printed", n)
		case o.Result == check.Fail:
			t.Errorf("%s failed: %+v", n, o.Evidence)
		case o.Result == check.NotApplicable && o.Evidence.Summary == "":
			t.Errorf("%s: not applicable without saying why", n)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	return outs
}

// podwatch serve of each bundled fixture passes the battery: what a
// recording cannot show (new changes, paging over two pods) is not
// applicable, and says so.
func TestCheckServedFixture(t *testing.T) {
	clitest.Isolate(t)
	for _, fixture := range []string{lifecycleFixture, "../../testdata/fixtures/watch-list"} {
		t.Run(filepath.Base(fixture), func(t *testing.T) {
			t.Parallel()
			checkServed(t, fixture)
		})
	}
}

func checkServed(t *testing.T, fixture string) {
	url, _ := serveFixture(t, fixture)
	code, stdout, stderr := runCheck(t, "--server", url, "--node", "node-a", "-o", "json", "--watch-seconds", "3")
	outs := noneFails(t, code, stdout, stderr)
	// A watch that asks what a recorded one asked gets the recorded answer,
	// a 403 or 503 of the restart in the recording too: the other checks
	// may say not applicable, for that reason.
	for _, n := range []string{"list-consistent", "watch-list-initial-events-end", "error-status-body", "content-type-protobuf"} {
		if outs[n].Result != check.Pass {
			t.Errorf("%s: %s, want pass", n, outs[n].Result)
		}
	}
}

// serve --simulate over HTTP/2 with TLS passes the battery, --write too
// (the model takes no writes: what needs them says so), and no output
// holds the bearer token, which the evidence shows masked.
func TestCheckSimulated(t *testing.T) {
	clitest.Isolate(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	url := serveTLS(t, "--simulate", "--seed", "5", "--http2", "--ca-out", caFile)
	const token = "s3cret-check-token"
	code, stdout, stderr := runCheck(t, "--server", url, "--certificate-authority", caFile, "--token", token, "--write", "-o", "json")
	outs := noneFails(t, code, stdout, stderr)
	if strings.Contains(stdout+stderr, token) {
		t.Fatalf("the output holds the bearer token")
	}
	x := outs["list-consistent"].Evidence.Exchanges
	if len(x) == 0 || x[0].Auth != "Bearer <masked>" || x[0].Proto != "HTTP/2.0" {
		t.Fatalf("list-consistent's exchange %+v, want HTTP/2.0 and the Authorization masked", x)
	}
	for _, n := range []string{"watch-list-initial-events-end", "watch-list-stays-open", "watch-too-old-410", "framing-stream", "content-type-protobuf"} {
		if outs[n].Result != check.Pass {
			t.Errorf("%s: %s, want pass", n, outs[n].Result)
		}
	}
}

// serveTLS runs podwatch serve with args (which must hold --http2) and
// returns its https URL.
func serveTLS(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := clitest.NewSyncBuffer()
	served := make(chan int, 1)
	go func() {
		served <- testEnv(clitest.NewSyncBuffer(), stderr).Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		<-served
	})
	if err := stderr.WaitFor("--certificate-authority"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`on (https://[0-9.:]+)\n`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
	}
	if _, err := os.Stat(args[len(args)-1]); err != nil {
		t.Fatal(err)
	}
	return m[1]
}

// A failing check makes exit status 1, and its text line gives the
// evidence: here every list answers 500.
func TestCheckFailureExitsOne(t *testing.T) {
	clitest.Isolate(t)
	url, _ := serveFixture(t, "--simulate", "--fault", "500:on=list,nth=1")
	code, stdout, stderr := runCheck(t, "--server", url, "--only", "list-rv-zero")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "fail ") || !strings.Contains(lines[0], "list-consistent") ||
		!strings.Contains(lines[0], "requires:") || !strings.Contains(lines[0], "GET /api/v1/pods: 500") {
		t.Fatalf("stdout:\n%s\nwant list-consistent failing with its evidence, then list-rv-zero", stdout)
	}
	if !strings.HasPrefix(lines[1], "not-applicable") || !strings.Contains(lines[1], "depends on list-consistent, which failed") {
		t.Fatalf("second line %q: want list-rv-zero not applicable, depending on list-consistent, which failed", lines[1])
	}
	if !strings.Contains(stderr, "1 check failed: list-consistent") {
		t.Fatalf("stderr %q does not name the failed check", stderr)
	}
}

func TestCheckUsage(t *testing.T) {
	clitest.Isolate(t)
	for _, args := range [][]string{
		{"--node", "a", "--namespace", "b"},
		{"--only", "no-such-check", "--server", "http://127.0.0.1:1"},
		{"-o", "yaml"},
		{"--timeout", "0s"},
	} {
		if code, _, stderr := runCheck(t, args...); code != 2 {
			t.Errorf("check %v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
	}
}
