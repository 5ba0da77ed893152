package stall

import (
	"bytes"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/replayclock"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
)

// TestCheckOnAVirtualClock runs the stall check on a replay's virtual
// clock (Options.Clock): it looks at the watches only when a wait
// moves the time past its period, on that wait's goroutine and before the
// wait returns, judging the silence at the time the wait made; after Close
// a wait finds nothing more to tell.
func TestCheckOnAVirtualClock(t *testing.T) {
	clock := replayclock.NewVirtual(time.Unix(1000, 0), nil)
	var js bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&js)}, Clock: clock.Now, Analyses: []trace.Analysis{New(Options{After: time.Second, Clock: clock})}})
	srv := tracetest.SilentServer(t, make(chan string))
	body := openWatch(t, tr, srv, "", "resourceVersion=10&timeoutSeconds=60&allowWatchBookmarks=true")
	defer body.Close()
	clock.After(500 * time.Millisecond) // a look, at a silence too short to tell
	if stalls, _ := stallSteps(t, js.String()); len(stalls) != 0 {
		t.Fatalf("a silence of 500ms was told at --stall-after 1s:\n%s", js.String())
	}
	clock.After(3 * time.Second)
	stalls, _ := stallSteps(t, js.String()) // told before the wait returned
	if len(stalls) != 1 || stalls[0].Stall.Verdict != trace.VerdictQuiet || stalls[0].Stall.SinceByte != 3500 {
		t.Fatalf("after waits of 500ms and 3s: want one quiet stall, 3.5 s without a byte:\n%s", js.String())
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	told := js.String()
	clock.After(time.Hour)
	if js.String() != told {
		t.Errorf("the stall check told more after Close:\n%s", js.String())
	}
}
