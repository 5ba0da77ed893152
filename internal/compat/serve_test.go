package compat

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// servedAt finds the address in the line `podwatch serve` logs once it
// listens: "... on http://127.0.0.1:PORT".
var servedAt = regexp.MustCompile(` on (https?://\S+)`)

// serveStartTimeout bounds the wait for a server to say where it listens.
const serveStartTimeout = 60 * time.Second

// podwatchServer is one `podwatch serve` subprocess.
type podwatchServer struct {
	URL string
	log *syncBuffer // its stderr, for failure messages
}

// startServe runs `podwatch serve ARGS... -v 6` until the test ends, and
// returns once it listens. Its request log is in the returned server's log.
func startServe(t *testing.T, args ...string) *podwatchServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, podwatchBin, append(append([]string{"serve"}, args...), "-v", "6")...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start podwatch serve: %v", err)
	}
	s := &podwatchServer{log: &syncBuffer{}}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.log.WriteString(line + "\n")
			if m := servedAt.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		cmd.Wait()
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-waited
		<-copied
		if t.Failed() {
			t.Logf("podwatch serve %q said:\n%s", args, s.log.String())
		}
	})
	select {
	case s.URL = <-found:
		return s
	case <-waited:
		t.Fatalf("podwatch serve %q ended before listening:\n%s", args, s.log.String())
	case <-time.After(serveStartTimeout):
		t.Fatalf("podwatch serve %q did not say where it listens within %v:\n%s", args, serveStartTimeout, s.log.String())
	}
	return nil
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLog waits until the server has logged a line holding want.
func (s *podwatchServer) waitLog(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(serveStartTimeout)
	for !strings.Contains(s.log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("podwatch serve did not log %q within %v:\n%s", want, serveStartTimeout, s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
