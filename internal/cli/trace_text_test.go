package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// replayStderr replays lifecycle at full speed with the trace on stderr (not
// a terminal) and the flags given, and returns what the command printed.
// $COLUMNS is cleared so that the environment the test runs in does not
// decide the width.
func replayStderr(t *testing.T, extra ...string) result {
	t.Helper()
	clitest.Isolate(t)
	t.Setenv("COLUMNS", "")
	return mustRun(t, append([]string{"watch", "--replay", fixturePath("lifecycle"), "--speed", "0"}, extra...)...)
}

// linesUnder is the step line of trace that begins with head, and the lines
// indented under it.
func linesUnder(t *testing.T, trace, head string) []string {
	t.Helper()
	lines := strings.Split(trace, "\n")
	for i, l := range lines {
		if !strings.Contains(l, head) {
			continue
		}
		out := []string{l}
		for _, m := range lines[i+1:] {
			if !strings.HasPrefix(m, strings.Repeat(" ", textIndentCLI)) {
				break
			}
			out = append(out, strings.TrimSpace(m))
		}
		return out
	}
	t.Fatalf("no line %q in the trace:\n%s", head, trace)
	return nil
}

// textIndentCLI is where a step's text, and the lines under it, begin.
const textIndentCLI = 25

// A plain --trace explains each query parameter the first time it is sent;
// the second watch names only what changed, briefly. --trace=full explains
// them on every watch.
func TestTraceExplainsOnce(t *testing.T) {
	brief := replayStderr(t, "--trace").stderr
	if n := strings.Count(brief, "allowWatchBookmarks=true: "); n != 1 {
		t.Errorf("--trace explains allowWatchBookmarks %d times, want once:\n%s", n, brief)
	}
	got := linesUnder(t, brief, "#3 ->")
	want := []string{"resourceVersion=221: only changes after 221", "timeoutSeconds=460: the server ends the watch cleanly after 460s"}
	if strings.Join(got[1:], "\n") != strings.Join(want, "\n") {
		t.Errorf("the second watch's parameters:\n got %q\nwant %q", got[1:], want)
	}
	if !strings.HasSuffix(got[0], " (watch)") {
		t.Errorf("the second watch explains itself again: %q", got[0])
	}

	full := replayStderr(t, "--trace=full").stderr
	watches := strings.Count(full, " (watch): ")
	if watches < 4 {
		t.Fatalf("only %d watches in the replay:\n%s", watches, full)
	}
	for _, p := range []string{"allowWatchBookmarks=true: ", "fieldSelector=spec.nodeName=node-a: ", "watch=true: ", "headers: Accept: application/json"} {
		if n := strings.Count(full, "\n"+strings.Repeat(" ", textIndentCLI)+p); n < watches {
			t.Errorf("--trace=full tells %q %d times, want on each of the %d watches", p, n, watches)
		}
	}
	for _, s := range []string{"allowWatchBookmarks=true: ", "the server ended the watch (its timeoutSeconds ran out"} {
		if strings.Count(full, s) <= strings.Count(brief, s) {
			t.Errorf("--trace=full tells %q no more often than --trace", s)
		}
	}
}

// columns is how wide s shows on a terminal (no escapes: not coloured).
func columns(s string) int { return utf8.RuneCountInString(s) }

// The trace on stderr fits --trace-width, else $COLUMNS; in a file it is
// never wrapped unless a width is given.
func TestTraceWidth(t *testing.T) {
	check := func(name, trace string, width int) {
		t.Helper()
		wrapped := 0
		for _, l := range strings.Split(trace, "\n") {
			if columns(l) > width {
				t.Errorf("%s: a line of %d columns, more than %d: %q", name, columns(l), width, l)
			}
			if strings.HasPrefix(l, strings.Repeat(" ", textIndentCLI+2)) && !strings.HasPrefix(l, strings.Repeat(" ", textIndentCLI+3)) {
				wrapped++
			}
		}
		if wrapped == 0 {
			t.Errorf("%s: no line continues under its text: nothing wrapped?\n%s", name, trace)
		}
	}
	check("--trace-width 60", replayStderr(t, "--trace", "--trace-width", "60").stderr, 60)

	clitest.Isolate(t)
	t.Setenv("COLUMNS", "80")
	check("COLUMNS=80", mustRun(t, "watch", "--replay", fixturePath("lifecycle"), "--speed", "0", "--trace").stderr, 80)

	file, _ := replayTrace(t, "lifecycle")
	long := 0
	for _, l := range strings.Split(file, "\n") {
		if columns(l) > 200 {
			long++
		}
	}
	if long == 0 {
		t.Errorf("the trace in a file was wrapped, with $COLUMNS set and no --trace-width:\n%s", file)
	}
	file, _ = replayTrace(t, "lifecycle", "--trace-width", "100")
	for _, l := range strings.Split(file, "\n") {
		if columns(l) > 100 {
			t.Errorf("--trace-file with --trace-width 100: a line of %d columns: %q", columns(l), l)
		}
	}
}

// The lifecycle recording has a 403 on a watch, and the fault adds another:
// each backoff's failure is told once on stderr, by the trace when it is
// there, else by a warning.
func TestTraceWarnsOnce(t *testing.T) {
	fault := []string{"--fault", "html:status=403,on=watch,nth=2"}
	traced := replayStderr(t, append([]string{"--trace"}, fault...)...).stderr
	if n := strings.Count(traced, "podwatch: warning:"); n != 0 {
		t.Errorf("with --trace on stderr, %d warnings beside the trace, want none:\n%s", n, traced)
	}
	backoffs := strings.Count(traced, "reflector     backoff ")
	because := strings.Count(traced, "because: watch pods: ")
	if backoffs < 3 || because != backoffs {
		t.Errorf("%d backoffs told, %d with their failure; want at least 3, each with it:\n%s", backoffs, because, traced)
	}
	// The recorded Status is told with the answer; the backoff's failure
	// refers to it.
	if n := strings.Count(traced, `cannot watch resource "pods"`); n != 1 {
		t.Errorf("the recorded 403's message is printed %d times, want once:\n%s", n, traced)
	}
	if !strings.Contains(traced, "server answered 403 Forbidden (its Status above)") {
		t.Errorf("the backoff after the recorded 403 does not refer to its Status:\n%s", traced)
	}

	plain := replayStderr(t, fault...).stderr
	if n := strings.Count(plain, "podwatch: warning:"); n != backoffs {
		t.Errorf("without --trace, %d warnings, want one for each of the %d backoffs:\n%s", n, backoffs, plain)
	}
	_, r := replayTrace(t, "lifecycle", fault...)
	if n := strings.Count(r.stderr, "podwatch: warning:"); n != backoffs {
		t.Errorf("with the trace in a file, %d warnings on stderr, want %d:\n%s", n, backoffs, r.stderr)
	}
}

// addOfWeb4 finds the lifecycle replay's last update line, whatever its
// columns' widths.
var addOfWeb4 = regexp.MustCompile(`(?m)^ADD +api +shop/web-4 `)

// On one terminal, stdout and stderr interleave: every pod update must be
// printed before the trace's closing lines, the reflector's stop and the
// summary.
func TestPodUpdatesBeforeClosingLines(t *testing.T) {
	clitest.Isolate(t)
	t.Setenv("COLUMNS", "")
	for i := range 3 {
		both := clitest.NewSyncBuffer()
		r := runCtx(t, context.Background(), both, both, "watch", "--replay", fixturePath("lifecycle"), "--speed", "0", "--trace")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stdout)
		}
		lastUpdate := -1
		if m := addOfWeb4.FindStringIndex(r.stdout); m != nil {
			lastUpdate = m[0]
		}
		stopped := strings.Index(r.stdout, "reflector     stopped")
		summary := strings.Index(r.stdout, "trace         end after")
		if lastUpdate < 0 || stopped < 0 || summary < 0 {
			t.Fatalf("run %d: the last update, the stop or the summary is missing:\n%s", i+1, r.stdout)
		}
		if lastUpdate > stopped || stopped > summary {
			t.Fatalf("run %d: the last pod update is printed after the closing lines:\n%s", i+1, r.stdout)
		}
	}
}
