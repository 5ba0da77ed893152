package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// ptyStderr opens a pseudo-terminal cols columns wide and returns its
// terminal end, for the command's stderr, and a func that returns all that
// was written to it so far (read on the other end as the command runs, so
// that its writes never block).
func ptyStderr(t *testing.T, cols uint16) (*os.File, func() string) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	ws := struct{ Row, Col, Xpixel, Ypixel uint16 }{Row: 40, Col: cols}
	for _, c := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)}, {syscall.TIOCGPTN, unsafe.Pointer(&n)}, {syscall.TIOCSWINSZ, unsafe.Pointer(&ws)}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, controller.Fd(), c.req, uintptr(c.arg)); errno != 0 {
			controller.Close()
			t.Fatalf("set up the pseudo-terminal: %v", errno)
		}
	}
	terminal, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		controller.Close()
		t.Fatalf("open the terminal end: %v", err)
	}
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := controller.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // the terminal end is closed: EIO
			}
		}
	}()
	t.Cleanup(func() {
		terminal.Close()
		controller.Close()
		<-done
	})
	return terminal, func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]|\r`)

// On a terminal the trace fits the terminal's own width, with no flag and
// no $COLUMNS, and keeps its colours whole.
func TestTraceFitsTheTerminal(t *testing.T) {
	clitest.Isolate(t)
	t.Setenv("COLUMNS", "")
	t.Setenv("NO_COLOR", "")
	const cols = 90
	terminal, written := ptyStderr(t, cols)
	env := Env{Stdout: clitest.NewSyncBuffer(), Stderr: terminal, Now: func() time.Time { return clitest.Seen }}
	ctx, cancel := context.WithTimeout(context.Background(), clitest.Wait)
	defer cancel()
	if code := env.Run(ctx, []string{"watch", "--replay", fixturePath("lifecycle"), "--speed", "0", "--trace"}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, written())
	}
	if err := waitForText(ctx, written, " end after "); err != nil {
		t.Fatal(err)
	}
	raw := written()
	if !strings.Contains(raw, "\x1b[") {
		t.Errorf("no colour on a terminal:\n%q", raw)
	}
	lines := strings.Split(ansiRE.ReplaceAllString(raw, ""), "\n")
	wrapped := 0
	for _, l := range lines {
		if columns(l) > cols {
			t.Errorf("a line of %d columns on a terminal of %d: %q", columns(l), cols, l)
		}
		if strings.HasPrefix(l, strings.Repeat(" ", textIndentCLI+2)) {
			wrapped++
		}
	}
	if wrapped == 0 {
		t.Fatalf("nothing wrapped on a terminal of %d columns:\n%s", cols, strings.Join(lines, "\n"))
	}
}

// waitForText waits until written() holds s: the reader of the terminal
// runs behind the writer.
func waitForText(ctx context.Context, written func() string, s string) error {
	for !strings.Contains(written(), s) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %q; have:\n%s", s, written())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
