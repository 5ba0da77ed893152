package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/internal/timing"
)

// sevenFaults strike a replay of lifecycle, each one (the test checks it):
// three lists refused (a 500, a 429 whose Retry-After of 2s the client's
// retry waits out, an HTML page from a proxy), a watch cut before its first
// event, one ended inside its first event, one answered 410, and the relist
// after it stalled for 3s.
var sevenFaults = []string{
	"--fault", "500:on=list,nth=1",
	"--fault", "429:on=list,nth=2,wait=2s",
	"--fault", "html:on=list,nth=3",
	"--fault", "cut:events=0,nth=1",
	"--fault", "half-event:events=0,nth=2",
	"--fault", "gone:on=watch,nth=3",
	"--fault", "stall:on=list,nth=5,wait=3s",
}

// retryAfterWait is the one wait of sevenFaults that is not a reflector's
// backoff: the rest client's before retrying the 429.
const retryAfterWait = 2 * time.Second

// stallPause is sevenFaults' stall: at speed 0 it moves the replay's time
// on by its length once the client has read all before it.
const stallPause = 3 * time.Second

// runOnWall runs the command as run does, with the replay's clock over
// wall.
func runOnWall(t *testing.T, wall *replayclock.Recorder, args ...string) result {
	t.Helper()
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := testEnv(stdout, stderr)
	env.Wall = wall
	done := make(chan int, 1)
	go func() { done <- env.Run(ctx, args) }()
	select {
	case code := <-done:
		r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
		if code != 0 {
			t.Fatalf("podwatch %s: exit %d, want 0\nstderr:\n%s", strings.Join(args, " "), code, r.stderr)
		}
		return r
	case <-time.After(clitest.Wait):
		cancel()
		<-done
		t.Fatalf("podwatch %s did not end within %s\nstderr:\n%s", strings.Join(args, " "), clitest.Wait, stderr)
		return result{}
	}
}

// replayTiming is what a JSON trace tells of a replay's time: the waits of
// the reflector's backoffs and how long the run lasted.
type replayTiming struct {
	backoffs []time.Duration
	total    time.Duration
}

func readTiming(t *testing.T, path string) replayTiming {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	ms := func(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }
	var rt replayTiming
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s struct {
			Decision *struct {
				Step   string  `json:"step"`
				WaitMs float64 `json:"wait_ms"`
			} `json:"decision"`
			Stop *struct {
				DurationMs float64 `json:"duration_ms"`
			} `json:"stop"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		switch {
		case s.Decision != nil && s.Decision.Step == "backoff":
			rt.backoffs = append(rt.backoffs, ms(s.Decision.WaitMs))
		case s.Stop != nil:
			rt.total = ms(s.Stop.DurationMs)
		}
	}
	return rt
}

// near reports whether a and b differ by at most the rounding of a trace's
// milliseconds (three decimals) over n values.
func near(a, b time.Duration, n int) bool {
	d := a - b
	return max(d, -d) <= time.Duration(n+1)*time.Microsecond
}

// TestReplayAtSpeedZeroAsksNoWallClockWait replays lifecycle with seven
// faults at --speed 0: every fault strikes, the client backs off and waits
// out a Retry-After, and the server stalls a list, yet nothing is asked to
// wait on the wall clock; the replay's time moves by exactly those waits
// and that stall.
func TestReplayAtSpeedZeroAsksNoWallClockWait(t *testing.T) {
	clitest.Isolate(t)
	wall := replayclock.NewRecorder(timing.Wall)
	file := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"watch", "--replay", lifecycleFixture, "--speed", "0", "-v", "6",
		"--trace-file", file, "--trace-format", "json"}, sevenFaults...)
	r := runOnWall(t, wall, args...)
	if struck := strings.Count(r.stderr, "replay: fault "); struck != len(sevenFaults)/2 {
		t.Fatalf("%d faults struck, want all %d\nstderr:\n%s", struck, len(sevenFaults)/2, r.stderr)
	}
	if waits := wall.Waits(); len(waits) != 0 {
		t.Fatalf("the replay asked the wall clock for waits %v, want none", waits)
	}
	rt := readTiming(t, file)
	if len(rt.backoffs) < 5 {
		t.Fatalf("backoffs %v: want one after each of the five faults that fail a request outright", rt.backoffs)
	}
	var sum time.Duration
	for _, b := range rt.backoffs {
		sum += b
	}
	if want := sum + retryAfterWait + stallPause; !near(rt.total, want, len(rt.backoffs)+1) {
		t.Fatalf("the replay lasted %v of its time, want its waits: backoffs %v plus the Retry-After %v plus the stall %v = %v",
			rt.total, rt.backoffs, retryAfterWait, stallPause, want)
	}
	t.Logf("replay time %v, no wall clock wait; guards armed on the wall clock as backstops: %d", rt.total, len(wall.Guards()))
}

// TestReplayAtSpeedScalesItsWaits replays with faults at --speed 20: each
// of the client's waits (every backoff, the Retry-After) is asked of the
// wall clock divided by 20, never whole.
func TestReplayAtSpeedScalesItsWaits(t *testing.T) {
	clitest.Isolate(t)
	const speed = 20
	wall := replayclock.NewRecorder(timing.Wall)
	file := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"watch", "--replay", lifecycleFixture, "--speed", "20",
		"--trace-file", file, "--trace-format", "json"}, sevenFaults...)
	runOnWall(t, wall, args...)
	asked := wall.Waits()
	clientWaits := append(readTiming(t, file).backoffs, retryAfterWait)
	if len(clientWaits) < 3 {
		t.Fatalf("the client waited %v: want backoffs to check", clientWaits)
	}
	for _, w := range clientWaits {
		i := slices.IndexFunc(asked, func(a time.Duration) bool { return near(a*speed, w, speed) })
		if i < 0 {
			t.Fatalf("the client's wait of %v was not asked of the wall clock as %v; asked %v", w, w/speed, asked)
		}
		asked = slices.Delete(asked, i, i+1)
		if slices.ContainsFunc(asked, func(a time.Duration) bool { return near(a, w, 1) }) {
			t.Fatalf("the client's wait of %v was asked of the wall clock unscaled; asked %v", w, wall.Waits())
		}
	}
}

// TestReplayAtSpeedZeroTracesAlike replays lifecycle with seven faults at
// --speed 0 twice: the text traces are the same, times included (how the
// kernel cut the bodies into reads aside, as the golden traces do).
func TestReplayAtSpeedZeroTracesAlike(t *testing.T) {
	clitest.Isolate(t)
	var traces []string
	for range 2 {
		got, _ := replayTrace(t, "lifecycle", sevenFaults...)
		traces = append(traces, stableTrace("text", got))
	}
	if !strings.Contains(traces[0], "backoff") {
		t.Fatalf("the trace shows no backoff:\n%s", traces[0])
	}
	if diff := cmp.Diff(traces[0], traces[1]); diff != "" {
		t.Fatalf("two replays at speed 0 traced differently (-first +second):\n%s", diff)
	}
}

// TestReplayServerPacesOnTheClock replays lifecycle cleanly at --speed 20:
// beside the client's backoffs, the fixture server's waits for each recorded
// moment are asked of the same clock, each scaled down to within the
// recording's length divided by 20.
func TestReplayServerPacesOnTheClock(t *testing.T) {
	clitest.Isolate(t)
	const speed = 20
	rec, err := fixture.Load(lifecycleFixture)
	if err != nil {
		t.Fatal(err)
	}
	var length time.Duration
	for _, ex := range rec.Exchanges {
		length = max(length, time.Duration(ex.Request.At+ex.Response.End))
	}
	wall := replayclock.NewRecorder(timing.Wall)
	file := filepath.Join(t.TempDir(), "trace.json")
	runOnWall(t, wall, "watch", "--replay", lifecycleFixture, "--speed", "20", "--trace-file", file, "--trace-format", "json")
	server := wall.Waits()
	for _, b := range readTiming(t, file).backoffs {
		i := slices.IndexFunc(server, func(a time.Duration) bool { return near(a*speed, b, speed) })
		if i < 0 {
			t.Fatalf("the backoff of %v was not asked of the wall clock as %v; asked %v", b, b/speed, wall.Waits())
		}
		server = slices.Delete(server, i, i+1)
	}
	if len(server) == 0 {
		t.Fatalf("the fixture server asked the replay's clock for no wait; asked %v", wall.Waits())
	}
	for _, w := range server {
		if w > length/speed {
			t.Fatalf("the fixture server waited %v on the wall clock, longer than the recording's %v at speed %d", w, length, speed)
		}
	}
}
