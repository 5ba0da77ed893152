package replayclock

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/podwatch/podwatch/internal/timing"
)

// testWait bounds every wait of these tests.
const testWait = 30 * time.Second

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// received reports whether ch already holds a value.
func received(ch <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-ch:
		return v, true
	default:
		return time.Time{}, false
	}
}

func TestVirtualWaitPassesAtOnceAndMovesTime(t *testing.T) {
	v := NewVirtual(t0, nil)
	got, ok := received(v.After(3 * time.Second))
	if !ok {
		t.Fatalf("a wait on the virtual clock did not pass at once")
	}
	if want := t0.Add(3 * time.Second); !got.Equal(want) || !v.Now().Equal(want) {
		t.Fatalf("after a 3s wait: got %v, Now %v, want %v", got, v.Now(), want)
	}
	v.After(0)
	v.After(-time.Second)
	if want := t0.Add(3 * time.Second); !v.Now().Equal(want) {
		t.Fatalf("waits of 0 and less moved the time to %v, want %v", v.Now(), want)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second, 0, -time.Second}, v.Waits()); diff != "" {
		t.Fatalf("Waits (-want +got):\n%s", diff)
	}
}

// TestVirtualGuards: a guard never moves time; a wait that passes its
// deadline fires it before the wait returns, in the order of deadlines; a
// stopped guard never fires; Reset counts from the time of the Reset.
func TestVirtualGuards(t *testing.T) {
	v := NewVirtual(t0, nil)
	var fired []string
	guard := func(name string, d time.Duration) timing.Timer {
		return v.AfterFunc(d, func() { fired = append(fired, name) })
	}
	late := guard("late", 5*time.Second)
	guard("early", 2*time.Second)
	stopped := guard("stopped", time.Second)
	reset := guard("reset", time.Second)
	if !v.Now().Equal(t0) {
		t.Fatalf("arming guards moved the time to %v", v.Now())
	}
	if !stopped.Stop() {
		t.Fatalf("Stop of an armed guard: got false, want true")
	}
	v.After(500 * time.Millisecond)
	if !reset.Reset(4 * time.Second) { // due at 4.5s now
		t.Fatalf("Reset of an armed guard: got false, want true")
	}
	v.After(2 * time.Second) // 2.5s
	if diff := cmp.Diff([]string{"early"}, fired); diff != "" {
		t.Fatalf("fired by 2.5s (-want +got):\n%s", diff)
	}
	v.After(10 * time.Second)
	if diff := cmp.Diff([]string{"early", "reset", "late"}, fired); diff != "" {
		t.Fatalf("fired by 12.5s (-want +got):\n%s", diff)
	}
	if late.Stop() || stopped.Stop() {
		t.Fatalf("Stop of a fired or stopped guard: got true, want false")
	}
}

// backstop is a wall clock stand-in whose guards fire when the test says.
type backstop struct {
	mu     sync.Mutex
	guards []*backstopTimer
}

type backstopTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (b *backstop) Now() time.Time { return t0 }
func (b *backstop) After(time.Duration) <-chan time.Time {
	panic("a virtual clock waited on its backstop")
}
func (b *backstop) AfterFunc(d time.Duration, f func()) timing.Timer {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := &backstopTimer{d: d, f: f}
	b.guards = append(b.guards, t)
	return &backstopHandle{b: b, t: t}
}

type backstopHandle struct {
	b *backstop
	t *backstopTimer
}

func (h *backstopHandle) Stop() bool {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	was := !h.t.stopped
	h.t.stopped = true
	return was
}
func (h *backstopHandle) Reset(time.Duration) bool { panic("a virtual clock reset its backstop") }

// TestVirtualBackstop: each guard is also armed on the backstop for its
// duration; the backstop fires it when virtual time stands still, and is
// stopped when virtual time fires it first.
func TestVirtualBackstop(t *testing.T) {
	b := &backstop{}
	v := NewVirtual(t0, b)
	fired := map[string]int{}
	v.AfterFunc(time.Minute, func() { fired["silent"]++ })
	v.AfterFunc(time.Second, func() { fired["passed"]++ })
	v.After(2 * time.Second)
	b.mu.Lock()
	guards := slices.Clone(b.guards)
	b.mu.Unlock()
	if len(guards) != 2 || guards[0].d != time.Minute || guards[1].d != time.Second {
		t.Fatalf("backstops armed: %+v, want one of 1m and one of 1s", guards)
	}
	if !guards[1].stopped {
		t.Fatalf("the backstop of a guard virtual time fired was not stopped")
	}
	guards[0].f() // the wall clock's minute passes with virtual time standing still
	guards[1].f() // a backstop that lost the race does nothing
	if diff := cmp.Diff(map[string]int{"silent": 1, "passed": 1}, fired); diff != "" {
		t.Fatalf("fired (-want +got):\n%s", diff)
	}
	v.After(time.Hour)
	if fired["silent"] != 1 {
		t.Fatalf("a guard its backstop fired fired again when virtual time passed it")
	}
}

// TestVirtualBackstopOnTheWallClock: over the real wall clock a guard that
// virtual time never reaches still fires.
func TestVirtualBackstopOnTheWallClock(t *testing.T) {
	v := NewVirtual(t0, timing.Wall)
	done := make(chan struct{})
	v.AfterFunc(10*time.Millisecond, func() { close(done) })
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatalf("the guard did not fire within %s of its 10ms backstop", testWait)
	}
}

// TestVirtualConcurrent waits, arms, stops and resets from many goroutines
// (run with -race): every guard fires at most once, and the time is the sum
// of the waits.
func TestVirtualConcurrent(t *testing.T) {
	v := NewVirtual(t0, timing.Wall)
	var mu sync.Mutex
	fires := map[int]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				id := i*100 + j
				g := v.AfterFunc(time.Duration(j+1)*time.Second, func() {
					mu.Lock()
					fires[id]++
					mu.Unlock()
				})
				v.After(time.Second)
				if j%3 == 0 {
					g.Stop()
				} else if j%3 == 1 {
					g.Reset(time.Hour)
				}
				_ = v.Now()
			}
		}()
	}
	wg.Wait()
	if want := t0.Add(8 * 50 * time.Second); !v.Now().Equal(want) {
		t.Fatalf("Now after 400 waits of 1s: %v, want %v", v.Now(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range fires {
		if n != 1 {
			t.Fatalf("guard %d fired %d times", id, n)
		}
	}
}

// TestScaledAsksBaseForScaledDurations runs a scaled clock over a virtual
// one, recorded: its waits and guards ask the base for d/speed, and its time
// passes speed times as fast as the base's.
func TestScaledAsksBaseForScaledDurations(t *testing.T) {
	base := NewVirtual(t0, nil)
	rec := NewRecorder(base)
	s := NewScaled(rec, 4)
	if !s.Now().Equal(t0) {
		t.Fatalf("a new scaled clock: Now %v, want its base's %v", s.Now(), t0)
	}
	if _, ok := received(s.After(8 * time.Second)); !ok {
		t.Fatalf("the wait did not pass (its base is virtual)")
	}
	if want := t0.Add(8 * time.Second); !s.Now().Equal(want) {
		t.Fatalf("after a wait of 8s at speed 4: Now %v, want %v", s.Now(), want)
	}
	fired := false
	g := s.AfterFunc(20*time.Second, func() { fired = true })
	g.Reset(40 * time.Second)
	base.After(9 * time.Second) // 36s of scaled time
	if fired {
		t.Fatalf("a guard reset to 40s fired at 36s")
	}
	base.After(time.Second)
	if !fired {
		t.Fatalf("a guard reset to 40s did not fire at 40s")
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, rec.Waits()); diff != "" {
		t.Fatalf("waits asked of the base (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 10 * time.Second}, rec.Guards()); diff != "" {
		t.Fatalf("guards asked of the base (-want +got):\n%s", diff)
	}
}

func TestForSpeed(t *testing.T) {
	for _, tc := range []struct {
		speed float64
		want  string
	}{{0, "virtual"}, {-1, "virtual"}, {0.5, "scaled"}, {100, "scaled"}} {
		var got string
		switch ForSpeed(tc.speed, timing.Wall).(type) {
		case *Virtual:
			got = "virtual"
		case *Scaled:
			got = "scaled"
		}
		if got != tc.want {
			t.Errorf("ForSpeed(%v): got a %s clock, want %s", tc.speed, got, tc.want)
		}
	}
}

// TestRecorderOverTheWallClock records what it passes on, and what it passes
// on works.
func TestRecorderOverTheWallClock(t *testing.T) {
	rec := NewRecorder(timing.Wall)
	select {
	case <-rec.After(time.Millisecond):
	case <-time.After(testWait):
		t.Fatalf("a 1ms wait did not pass within %s", testWait)
	}
	g := rec.AfterFunc(time.Hour, func() { t.Errorf("a stopped guard fired") })
	g.Reset(2 * time.Hour)
	if !g.Stop() {
		t.Fatalf("Stop of an armed guard: got false")
	}
	if diff := cmp.Diff([]time.Duration{time.Millisecond}, rec.Waits()); diff != "" {
		t.Fatalf("waits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Hour, 2 * time.Hour}, rec.Guards()); diff != "" {
		t.Fatalf("guards (-want +got):\n%s", diff)
	}
}
