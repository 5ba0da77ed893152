package cli

import (
	"fmt"
	"io"
	"sync"
)

// logger writes diagnostics to stderr, one line at a time, from any goroutine.
// It also owns the progress line, which it clears before anything else is
// written so the two never run into each other.
type logger struct {
	mu       sync.Mutex
	w        io.Writer
	level    int
	progress bool // a progress line is drawn and not yet cleared
}

func newLogger(w io.Writer, level int) *logger { return &logger{w: w, level: level} }

// V reports whether messages of level n are shown.
func (l *logger) V(n int) bool { return l.level >= n }

// printf writes one line.
func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// drawProgress replaces the progress line with s (which has no newline).
func (l *logger) drawProgress(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s", s)
	l.progress = true
}

// endProgress clears the progress line, if one is drawn.
func (l *logger) endProgress() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

func (l *logger) clearLocked() {
	if l.progress {
		fmt.Fprint(l.w, "\r\033[K")
		l.progress = false
	}
}
