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

// TestWarnfWraps: a warning wider than the width it wraps at breaks
// between words (a URL between its parameters), its continuations
// indented under the text, and unwrapped it stays one line.
func TestWarnfWraps(t *testing.T) {
	const msg = "list pods: GET http://127.0.0.1:1/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=500: dial tcp 127.0.0.1:1: connect: connection refused; retrying in 556ms"
	out := clitest.NewSyncBuffer()
	NewLogger(out, 0).WrapAt(60).Warnf("%s", msg)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "podwatch: warning: list pods: ") {
		t.Fatalf("got %q, want the warning on several lines", out.String())
	}
	full := "podwatch: warning: " + msg
	url := strings.Fields(msg)[3] // the request's URL, the one word too long for a line
	var joined string
	for i, l := range lines {
		if len(l) > 60 {
			t.Errorf("line %d is %d columns, more than 60: %q", i+1, len(l), l)
		}
		if i == 0 {
			joined = l
			continue
		}
		if !strings.HasPrefix(l, strings.Repeat(" ", 12)) {
			t.Errorf("line %d is not indented under the text: %q", i+1, l)
		}
		// A break is at a space, or inside the URL.
		prev := strings.Fields(lines[i-1])
		last, first := prev[len(prev)-1], strings.Fields(l)[0]
		switch {
		case strings.Contains(full, last+" "+first):
			joined += " " + strings.TrimSpace(l)
		case strings.Contains(url, last+first):
			joined += strings.TrimSpace(l)
		default:
			t.Errorf("lines %d and %d break the word %q", i, i+1, last+first)
		}
	}
	if joined != full {
		t.Errorf("the lines do not hold the warning whole: got %q, want %q", joined, full)
	}
	out = clitest.NewSyncBuffer()
	NewLogger(out, 0).Warnf("%s", msg)
	if want := "podwatch: warning: " + msg + "\n"; out.String() != want {
		t.Errorf("unwrapped: got %q, want %q", out.String(), want)
	}
}
