package base

import (
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// TestStdoutClearsProgress checks that what the command prints on stdout
// first clears a progress line drawn on stderr, as the two may share a
// terminal.
func TestStdoutClearsProgress(t *testing.T) {
	stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
	log := NewLogger(stderr, 0)
	log.DrawProgress("watching pods from rv 10")
	if _, err := log.Stdout(stdout).Write([]byte("ADD x\n")); err != nil {
		t.Fatal(err)
	}
	if want := "\r\x1b[Kwatching pods from rv 10\r\x1b[K"; stderr.String() != want {
		t.Errorf("stderr %q, want the line drawn then cleared: %q", stderr.String(), want)
	}
	if stdout.String() != "ADD x\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	log.Stdout(stdout).Write([]byte("ADD y\n"))
	if strings.Count(stderr.String(), "\r\x1b[K") != 2 {
		t.Errorf("a line already cleared was cleared again: %q", stderr.String())
	}
}
