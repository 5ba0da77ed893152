package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/internal/timing"
)

// stallStepOf is what these tests read of a JSON trace's steps.
type stallStepOf struct {
	AtMs  float64 `json:"at_ms"`
	Kind  string  `json:"kind"`
	Req   int     `json:"req"`
	Stall *struct {
		Verdict       string  `json:"verdict"`
		SinceByteMs   float64 `json:"sinceByte_ms"`
		SinceEventMs  float64 `json:"sinceEvent_ms"`
		SinceBookmark float64 `json:"sinceBookmark_ms"`
	} `json:"stall"`
	Read *struct {
		Offset  int64   `json:"offset"`
		SinceMs float64 `json:"since_ms"`
	} `json:"read"`
	BodyEnd *struct {
		How   string `json:"how"`
		Bytes int64  `json:"bytes"`
	} `json:"body-end"`
	Decision *struct {
		Step string `json:"step"`
	} `json:"decision"`
}

// replayOnWall replays lifecycle at --speed 0 with the faults and flags
// given, its clock over wall, and returns its JSON trace.
func replayOnWall(t *testing.T, wall *replayclock.Recorder, extra ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.json")
	args := append([]string{"watch", "--replay", lifecycleFixture, "--speed", "0",
		"--trace-file", file, "--trace-format", "json"}, extra...)
	runOnWall(t, wall, args...)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	return string(data)
}

// firstWatchStalled stalls lifecycle's first watch (request 2) stalled after its
// first event (2070 bytes) for wait.
func firstWatchStalled(wait string) []string {
	return []string{"--fault", "stall:on=watch,events=1,wait=" + wait, "--stall-after", "1s"}
}

const firstEventBytes = 2070

// TestReplayStallAtSpeedZero replays lifecycle at --speed 0 with its first
// watch stalled for 3 s after one event: the pause moves the replay's time
// by its 3 s once the client has read the event, so the stall check tells
// the silence, quiet, aged 3 s of replay time, and the next read comes 3 s
// after the one before, all without a wait asked of the wall clock. Two
// runs trace the same, times included.
func TestReplayStallAtSpeedZero(t *testing.T) {
	clitest.Isolate(t)
	const pause = 3 * time.Second
	var traces []string
	for run := range 2 {
		wall := replayclock.NewRecorder(timing.Wall)
		trace := replayOnWall(t, wall, firstWatchStalled("3s")...)
		if waits := wall.Waits(); len(waits) != 0 {
			t.Fatalf("run %d asked the wall clock for waits %v, want none", run, waits)
		}
		traces = append(traces, stableTrace("json", trace))

		var stalls []stallStepOf
		var resumed *stallStepOf
		for _, s := range parseTraceLines[stallStepOf](t, trace) {
			switch {
			case s.Stall != nil:
				stalls = append(stalls, s)
			case s.Req == 2 && s.Read != nil && s.Read.Offset == firstEventBytes:
				resumed = &s
			}
		}
		if len(stalls) != 1 {
			t.Fatalf("run %d: %d stall steps, want 1\n%s", run, len(stalls), trace)
		}
		st := stalls[0]
		ms := float64(pause / time.Millisecond)
		if st.Req != 2 || st.Stall.Verdict != "quiet" || st.Stall.SinceByteMs != ms || st.Stall.SinceEventMs != ms || st.AtMs < ms {
			t.Errorf("run %d: stall %+v of request %d at %.3f ms: want request 2 quiet, no byte and no event for %v, told once it has passed",
				run, *st.Stall, st.Req, st.AtMs, pause)
		}
		if resumed == nil || resumed.Read.SinceMs != ms {
			t.Errorf("run %d: the read after the stall %+v: want it %v after the one before", run, resumed, pause)
		}
	}
	if diff := cmp.Diff(traces[0], traces[1]); diff != "" {
		t.Fatalf("two replays at speed 0 with a stall traced differently (-first +second):\n%s", diff)
	}
}

// TestReplayWatchdogAtSpeedZero stalls lifecycle's first watch for 20
// minutes at --speed 0, longer than its timeoutSeconds (at most 600) plus
// the watchdog's 30 s of grace: the pause moves the replay's time, the
// watchdog fires on it and closes the watch after its first event, and the
// client backs off and goes on, with no wait asked of the wall clock. (The
// watchdog's backstop on the wall clock is its length, minutes: the test
// ends long before.)
func TestReplayWatchdogAtSpeedZero(t *testing.T) {
	clitest.Isolate(t)
	wall := replayclock.NewRecorder(timing.Wall)
	trace := replayOnWall(t, wall, firstWatchStalled("20m")...)
	if waits := wall.Waits(); len(waits) != 0 {
		t.Fatalf("the replay asked the wall clock for waits %v, want none", waits)
	}
	steps := parseTraceLines[stallStepOf](t, trace)
	end := -1
	var verdicts []string
	for i, s := range steps {
		if s.Req == 2 && s.Stall != nil {
			verdicts = append(verdicts, s.Stall.Verdict)
		}
		if s.Req == 2 && s.BodyEnd != nil {
			end = i
			break
		}
	}
	if end < 0 {
		t.Fatalf("the first watch's body never ended:\n%s", trace)
	}
	if e := steps[end].BodyEnd; e.How != "closed" || e.Bytes != firstEventBytes {
		t.Fatalf("the first watch ended %q after %d bytes: want closed by the client (its watchdog) after its first event's %d\n%s",
			e.How, e.Bytes, firstEventBytes, trace)
	}
	if minutes := steps[end].AtMs / float64(time.Minute/time.Millisecond); minutes < 20 {
		t.Errorf("the first watch was closed %.1f minutes into the replay, want after the 20 minute stall", minutes)
	}
	if next := steps[end+1]; next.Decision == nil || next.Decision.Step != "backoff" {
		t.Errorf("after the watch was closed: %+v, want a backoff", next)
	}
	if diff := cmp.Diff([]string{"dead"}, verdicts); diff != "" {
		t.Errorf("the stall's verdicts (-want +got):\n%s", diff)
	}
}
