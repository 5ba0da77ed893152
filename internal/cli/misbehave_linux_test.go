package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// peakMemoryBound is what the command may hold at its peak against an
// endless frame: the 16 MiB frame limit, with room for the runtime, the
// buffers growing to it and the pods. A decoder that buffered the frame would
// pass it within seconds at the rate the server streams.
const peakMemoryBound = 256 << 20

// TestEndlessFrameMemory runs the built command (a process of its own, whose
// peak resident memory is its own figure) against a server whose first watch
// list streams a frame that never ends: the command names the limit, syncs
// from a list, keeps running, exits 0 on SIGINT, and its peak resident set
// (VmHWM while running, Maxrss after exit) stays under peakMemoryBound.
func TestEndlessFrameMemory(t *testing.T) {
	clitest.Isolate(t)
	m := startMisbehavingServer(t, endlessFrame)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "podwatch")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/podwatch/podwatch/cmd/podwatch").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/podwatch: %v\n%s", err, out)
	}
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	cmd := exec.CommandContext(ctx, bin, append([]string{"watch"}, m.args()...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for _, w := range []func() error{
		func() error {
			return stderr.WaitInOrder([]string{"longer than the 16777216-byte limit", "listing instead"})
		},
		func() error { return stdout.WaitFor("pod-b") },
	} {
		if err := w(); err != nil {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		}
	}
	hwm := vmHWM(t, cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after SIGINT: %v, want exit 0\nstderr:\n%s", err, stderr)
		}
	case <-time.After(clitest.Wait):
		cmd.Process.Kill()
		t.Fatalf("still running %v after SIGINT", clitest.Wait)
	}
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak resident memory against an endless frame: VmHWM %d MiB, Maxrss %d MiB (bound %d MiB)", hwm>>20, maxRSS>>20, peakMemoryBound>>20)
	if hwm > peakMemoryBound || maxRSS > peakMemoryBound {
		t.Fatalf("peak resident memory VmHWM %d, Maxrss %d bytes; want at most %d", hwm, maxRSS, peakMemoryBound)
	}
	if strings.Contains(stdout.String()+stderr.String(), misbehaveToken) {
		t.Fatal("the bearer token is in the output")
	}
}

// vmHWM is pid's peak resident set so far, from /proc/PID/status.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}
