package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/stall"
)

// TestReplayStallFault replays the bundled lifecycle fixture with its first
// watch held silent for 3 s after one event (a stall fault), at
// --stall-after 1s, and reads the JSON trace: the watch's silence is told
// once, quiet: podwatch's watch asked for bookmarks and minutes of
// timeoutSeconds, and the event moved the server past it, so its next
// bookmark is due only about a minute on. The summary counts it.
func TestReplayStallFault(t *testing.T) {
	clitest.Isolate(t)
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	env := testEnv(stdout, stderr)
	env.Now = time.Now // the stall check measures silences on the Tracer's clock
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := env.Run(ctx, []string{"watch", "--replay", lifecycleFixture, "-o", "json", "--max-events", "3",
		"--fault", "stall:on=watch,events=1,wait=3s", "--stall-after", "1s",
		"--trace-file", tracePath, "--trace-format", "json"})
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	var verdicts []string
	var stop *trace.Stop
	type stallStep struct {
		Req   int
		Stall *trace.Stall
		Stop  *trace.Stop
	}
	for _, s := range parseTraceLines[stallStep](t, string(data)) {
		if s.Stop != nil {
			stop = s.Stop
		}
		if s.Stall == nil {
			continue
		}
		if s.Req != 2 || !s.Stall.Bookmarks {
			t.Errorf("stall of request %d (bookmarks %t), want the first watch, #2, which asked for bookmarks", s.Req, s.Stall.Bookmarks)
		}
		verdicts = append(verdicts, s.Stall.Verdict)
		if !strings.Contains(s.Stall.Explain, "about every minute") {
			t.Errorf("stall explains %q: want the minute between the server's bookmarks", s.Stall.Explain)
		}
	}
	if got, want := strings.Join(verdicts, " "), "quiet"; got != want {
		t.Errorf("stall verdicts %q, want %q; trace:\n%s", got, want, data)
	}
	if stop == nil || stop.Stalls != len(verdicts) {
		t.Errorf("summary %+v: want %d stalls counted", stop, len(verdicts))
	}
}

// TestStallAfterFlag checks the flag's default, as --help tells it, and its
// refusal of a negative duration.
func TestStallAfterFlag(t *testing.T) {
	clitest.Isolate(t)
	r := run(t, "watch", "--replay", lifecycleFixture, "--stall-after", "-1s")
	if r.code != 2 || !strings.Contains(r.stderr, "--stall-after") {
		t.Errorf("a negative --stall-after: exit %d, stderr %q; want 2 and the flag named", r.code, r.stderr)
	}
	help := run(t, "watch", "--help").stdout
	_, flag, _ := strings.Cut(help, "  --stall-after duration\n")
	flag, _, _ = strings.Cut(flag, "\n  -")        // the next flag's
	flag = strings.Join(strings.Fields(flag), " ") // unfolded
	if want := fmt.Sprintf("(default %s)", stall.DefaultAfter); !strings.HasSuffix(flag, want) {
		t.Errorf("--stall-after in --help: %q, want its default %s", flag, want)
	}
}
