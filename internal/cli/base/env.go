package base

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/term"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Env is what a command takes from its process. The zero value of every
// field but Stdout and Stderr means the real process; tests fill them in.
// Commands are given it with its defaults filled in (WithDefaults).
type Env struct {
	Stdout, Stderr io.Writer
	// Now stamps kubernetes.io/config.seen; a fixed clock keeps output stable.
	// Default time.Now.
	Now func() time.Time
	// Hostname gives the default --node, lowercased as the kubelet does.
	// Default os.Hostname.
	Hostname func() (string, error)
	// StderrIsTerminal says whether progress may be drawn on Stderr. Default:
	// Stderr is an *os.File on a terminal.
	StderrIsTerminal func() bool
	// Wall is the wall clock a replay's clock runs over (watch --replay);
	// tests record through it what a replay asks of the wall clock.
	// Default timing.Wall.
	Wall timing.TimerClock
}

// WithDefaults is e with every field left zero set to the real process's.
func (e Env) WithDefaults() Env {
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Now == nil {
		e.Now = time.Now
	}
	if e.Hostname == nil {
		e.Hostname = os.Hostname
	}
	if e.Wall == nil {
		e.Wall = timing.Wall
	}
	if e.StderrIsTerminal == nil {
		w := e.Stderr
		e.StderrIsTerminal = func() bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(f)
		}
	}
	return e
}

// NodeName is the kubelet's default node name: the hostname, trimmed and
// lowercased.
func (e Env) NodeName() (string, error) {
	h, err := e.Hostname()
	if err != nil {
		return "", fmt.Errorf("find the node name (give --node or --all-nodes): %w", err)
	}
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "" {
		return "", fmt.Errorf("the hostname is empty: give --node or --all-nodes")
	}
	return h, nil
}

// StderrWidth is the width podwatch's lines on stderr (the text trace, its
// warnings and errors) wrap at: the terminal's, else $COLUMNS (for a pipe or
// a test that wants the lines to fit), else none (0): what a program reads
// or a file keeps has one line per thing told. It is never under 40
// columns, the narrowest the trace is laid out in.
func (e Env) StderrWidth() int {
	if e.StderrIsTerminal != nil && e.StderrIsTerminal() {
		if fl, ok := e.Stderr.(*os.File); ok {
			if w, ok := term.Width(fl); ok {
				return max(w, minTraceWidth)
			}
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return max(n, minTraceWidth)
	}
	return 0
}

// Fold lays out msg, after head, in lines of at most width columns (0:
// one line) broken at spaces as the text trace's are, and joins them with
// newlines; a line on a terminal then never breaks inside a word.
func Fold(head, msg string, width int) string {
	return strings.Join(text.WrapLine(head, msg, width), "\n")
}

// OneLine keeps an error to the one line the command promises.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
