package cluster

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Under -short StartForTest skips before it builds or starts anything: its
// bin folder here cannot even be made, so any attempt would fail instead.
func TestStartForTestSkipsWhenShort(t *testing.T) {
	setShort(t, true)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tb := &endRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		StartForTest(tb, Options{BinDir: filepath.Join(notDir, "bin")})
		tb.ended = "returned"
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("StartForTest still running after a minute under -short")
	}
	if tb.skipped == "" {
		t.Fatalf("under -short StartForTest %s, want a skip", tb.ended)
	}
}

// endRecorder is a test whose Skip and Fatal record why it ended, and end
// only the goroutine that called them.
type endRecorder struct {
	testing.TB
	skipped, ended string
}

func (r *endRecorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *endRecorder) Fatalf(format string, args ...any) {
	r.ended = "failed: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// setShort sets go test's -short for the rest of t, as if given or not.
func setShort(t *testing.T, short bool) {
	t.Helper()
	f := flag.Lookup("test.short")
	if f == nil {
		t.Fatal("no test.short flag")
	}
	was := f.Value.String()
	if err := f.Value.Set(fmt.Sprint(short)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Value.Set(was) })
}
