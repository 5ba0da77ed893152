// Package tool is what every tool main of podwatch's shares: the tools that
// build, record and measure (cluster-bins, record-fixtures, benchserver,
// benchrun), kept out of the podwatch program.
//
// Each tool is the package main at internal/<area>/cmd/<tool>. Its main.go
// holds only main, which calls Run with the tool's Main; Main, in the same
// package, takes a context, the arguments without the program name and the
// two output streams, parses flags with the standard flag package (a FlagSet
// of its own, through NewFlagSet and Parse), and returns the exit status.
// Tests call Main as main does.
package tool

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses, as the podwatch program's.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Main is a tool's entry point: it returns once its work is done or ctx
// ends, with every process and goroutine it started stopped.
type Main func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Run runs main with the process's arguments and streams under a context
// that Ctrl-C and SIGTERM end, and exits the process with main's status.
func Run(main Main) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// NewFlagSet returns an empty flag set named name that reports on stderr and
// leaves the choice of exit to Parse's caller.
func NewFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// Parse parses args into fs, which takes no positional arguments. ok false
// means the tool should return status at once: ExitOK after -help (the
// usage is printed), ExitUsage after a bad command line (already reported
// on fs's output).
func Parse(fs *flag.FlagSet, args []string) (status int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return ExitUsage, false
	}
	return ExitOK, true
}
