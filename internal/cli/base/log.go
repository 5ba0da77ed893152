package base

import (
	"fmt"
	"io"
	"sync"
)

// Logger writes diagnostics to stderr, one line at a time, from any goroutine.
// It also owns the progress line, which it clears before anything else is
// written so the two never run into each other.
type Logger struct {
	mu       sync.Mutex
	w        io.Writer
	level    int
	width    int  // Warnf's, 0: no wrapping
	progress bool // a progress line is drawn and not yet cleared
}

// NewLogger logs to w the messages of level (-v) and below.
func NewLogger(w io.Writer, level int) *Logger { return &Logger{w: w, level: level} }

// WrapAt has Warnf wrap its lines at width columns (0: never), as Fold
// does; it returns l.
func (l *Logger) WrapAt(width int) *Logger {
	l.width = width
	return l
}

// Warnf writes a warning, "podwatch: warning: " and the message on one
// line, wrapped at the width WrapAt set.
func (l *Logger) Warnf(format string, args ...any) {
	l.Printf("%s", Fold("podwatch: ", "warning: "+OneLine(fmt.Sprintf(format, args...)), l.width))
}

// V reports whether messages of level n are shown.
func (l *Logger) V(n int) bool { return l.level >= n }

// Printf writes one line.
func (l *Logger) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// DrawProgress replaces the progress line with s (which has no newline).
func (l *Logger) DrawProgress(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s", s)
	l.progress = true
}

// EndProgress clears the progress line, if one is drawn.
func (l *Logger) EndProgress() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

func (l *Logger) clearLocked() {
	if l.progress {
		fmt.Fprint(l.w, "\r\033[K")
		l.progress = false
	}
}

// Stdout is w (what the command prints on stdout) first clearing the
// progress line from a terminal the two may share, so they never run into
// each other. The line is drawn again on the next tick.
func (l *Logger) Stdout(w io.Writer) io.Writer { return stdoutWriter{l, w} }

type stdoutWriter struct {
	log *Logger
	w   io.Writer
}

func (s stdoutWriter) Write(b []byte) (int, error) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.log.clearLocked()
	return s.w.Write(b)
}
