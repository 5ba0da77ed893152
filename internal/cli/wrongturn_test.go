package cli

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/check"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// The wrong turns a newcomer takes first, each of which no retry can cure,
// end at once with one line that says what to change: a node the served
// recording does not hold, https against a plain HTTP server. (A host DNS
// does not know is the session's TestUnknownHost: DNS is faked there.) On
// a terminal of 120 columns the line wraps, and never inside a word.
func TestWrongTurnsGiveUp(t *testing.T) {
	clitest.Isolate(t)
	served, _ := serveFixture(t, lifecycleFixture)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another node", []string{"--server", served, "--node", "node-1"},
			"the server's recording holds only the pods of node node-a, so it refused GET " + served +
				"/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500: use --node node-a"},
		{"https to plain http", []string{"--server", "https" + strings.TrimPrefix(served, "http"), "--node", "node-a"},
			"the server speaks plain HTTP, not HTTPS: use " + served + " (--server, or the server of the kubeconfig's cluster)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"watch", "--watch-list=false"}, tc.args...)
			r := run(t, args...)
			if r.code != base.ExitError {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, base.ExitError, r.stderr)
			}
			if n := strings.Count(r.stderr, "\n"); n != 1 || !strings.HasPrefix(r.stderr, "podwatch: ") || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("stderr:\n%s\nwant one line saying %q", r.stderr, tc.want)
			}
			t.Setenv("COLUMNS", "120")
			wrapped := run(t, args...)
			checkFolded(t, wrapped.stderr, r.stderr, 120)
		})
	}
}

// checkFolded checks that wrapped is whole laid out in lines of at most
// width columns, each break at a space or after a URL's separator, never
// inside a word.
func checkFolded(t *testing.T, wrapped, whole string, width int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(wrapped, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("not wrapped at %d columns:\n%s", width, wrapped)
	}
	joined := lines[0]
	for i := 1; i < len(lines); i++ {
		if n := columns(lines[i-1]); n > width {
			t.Errorf("line %d is %d columns: %q", i, n, lines[i-1])
		}
		prev := strings.Fields(lines[i-1])
		last, first := prev[len(prev)-1], strings.Fields(lines[i])[0]
		switch {
		case strings.Contains(whole, last+" "+first):
			joined += " " + strings.TrimSpace(lines[i])
		case strings.ContainsAny(last[len(last)-1:], "&?/,;=:") && strings.Contains(whole, last+first):
			joined += strings.TrimSpace(lines[i])
		default:
			t.Errorf("lines %d and %d break inside %q:\n%s", i, i+1, last+first, wrapped)
		}
	}
	if want := strings.TrimSuffix(whole, "\n"); joined != want {
		t.Errorf("the wrapped lines hold\n%s\nwant\n%s", joined, want)
	}
}

// A refused connection is retried as before, but told in full once: each
// later attempt is a short line with its number, and the warnings wrap at
// the terminal's width like the trace.
func TestRefusedToldOnce(t *testing.T) {
	clitest.Isolate(t)
	t.Setenv("COLUMNS", "120")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	r := runUntilRetry(t, "attempt 2 failed: connection refused; retrying in ", "watch", "--server", "http://"+addr, "--node", "node-a")
	// Continuation lines joined again (a URL's breaks then read as spaces).
	joined := strings.ReplaceAll(r.stderr, "\n"+strings.Repeat(" ", 12), " ")
	if n := strings.Count(joined, "connect: connection refused"); n != 1 {
		t.Errorf("the failure is told in full %d times, want once:\n%s", n, r.stderr)
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if columns(l) > 120 {
			t.Errorf("a line of %d columns: %q", columns(l), l)
		}
	}
	if !strings.Contains(r.stderr, "podwatch: warning: attempt 1 failed: connection refused; retrying in ") {
		t.Errorf("the first attempt's list is not counted:\n%s", r.stderr)
	}
}

// check against a served recording without --node: the checks its 400s
// fail say which node to use, and so does the command's last line.
func TestCheckSuggestsTheServedScope(t *testing.T) {
	clitest.Isolate(t)
	served, _ := serveFixture(t, lifecycleFixture)
	code, stdout, stderr := runCheck(t, "--server", served, "-o", "json")
	if code != base.ExitError {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	const remedy = "the server's recording holds only the pods of node node-a: use --node node-a"
	failed := 0
	for n, o := range outcomes(t, stdout) {
		if o.Result != check.Fail {
			continue
		}
		failed++
		if o.Evidence.Remedy != remedy {
			t.Errorf("%s failed with remedy %q, want %q", n, o.Evidence.Remedy, remedy)
		}
	}
	if failed == 0 || !strings.HasSuffix(stderr, "; "+remedy+"\n") || strings.Count(stderr, remedy) != 1 {
		t.Fatalf("%d checks failed; stderr:\n%s\nwant failures, and the remedy once at the end", failed, stderr)
	}
}

// check interrupted: the checks it did not finish say so, none says the
// --timeout ran out, and the exit status is 130, as for diff; watch keeps
// ending with 0 on Ctrl-C (TestInterrupt).
func TestVerdictsInterrupted(t *testing.T) {
	clitest.Isolate(t)
	served, _ := serveFixture(t, lifecycleFixture)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	go func() {
		defer cancel() // Ctrl-C once the first check is told
		if err := stdout.WaitFor("\n"); err != nil {
			t.Error(err)
		}
	}()
	r := runCtx(t, ctx, stdout, stderr, "check", "--server", served, "--node", "node-a", "-o", "json")
	if r.code != base.ExitInterrupted {
		t.Fatalf("check: exit %d, want %d; stderr:\n%s", r.code, base.ExitInterrupted, r.stderr)
	}
	outs := outcomes(t, r.stdout)
	interrupted := 0
	for n, o := range outs {
		s := o.Evidence.Summary
		if strings.Contains(s, "--timeout") {
			t.Errorf("%s: %q, want no word of the timeout", n, s)
		}
		if strings.Contains(s, "interrupted") {
			interrupted++
		}
	}
	if len(outs) != len(check.Names()) || interrupted == 0 || !strings.HasSuffix(r.stderr, "podwatch: interrupted\n") {
		t.Fatalf("%d outcomes, %d interrupted; stderr:\n%s\nwant every check, some interrupted, and the end told", len(outs), interrupted, r.stderr)
	}

	done, stop := context.WithCancel(context.Background())
	stop()
	d := runCtx(t, done, clitest.NewSyncBuffer(), clitest.NewSyncBuffer(), "diff", lifecycleFixture, lifecycleFixture)
	if d.code != base.ExitInterrupted {
		t.Fatalf("diff interrupted: exit %d, want %d; stderr:\n%s", d.code, base.ExitInterrupted, d.stderr)
	}
}
