package base

import (
	"context"
	"errors"
)

// ExitInterrupted is the exit status of a verdict or a report that an
// interrupt cut short: 128 + SIGINT, what a shell reports of a command
// Ctrl-C killed, so that a script never takes the part that was printed for
// the whole answer.
const ExitInterrupted = 130

// InterruptedError ends a verdict or a report whose ctx ended (Ctrl-C,
// SIGTERM) before it was done: exit 130. Err, if not nil, is what the
// command found before it was stopped (checks that failed, say).
type InterruptedError struct{ Err error }

func (e *InterruptedError) Error() string {
	if e.Err == nil {
		return "interrupted"
	}
	return "interrupted; " + e.Err.Error()
}

func (e *InterruptedError) Unwrap() error   { return e.Err }
func (e *InterruptedError) ExitStatus() int { return ExitInterrupted }

// Verdict is the one rule of how a command ends when interrupted, for the
// commands whose job is a verdict or a report (check, diff, a fleet's):
// each returns Verdict(ctx, err), which is an *InterruptedError when ctx
// ended before the command was done, whatever err was, so that what it
// printed is never mistaken for its answer. A command line refused before
// anything ran (a usage error, --help) keeps its status.
//
// Long-running commands (watch, record, serve, proxy) do not call it: for
// them Ctrl-C is the normal way to stop, and they end with 0.
func Verdict(ctx context.Context, err error) error {
	var ue *UsageError
	if ctx.Err() == nil || errors.Is(err, ErrHelp) || errors.As(err, &ue) {
		return err
	}
	return &InterruptedError{Err: err}
}
