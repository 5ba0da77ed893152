package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/term"
	"github.com/podwatch/podwatch/internal/timing"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Env is what the command takes from its process. The zero value of every
// field but Stdout and Stderr means the real process; tests fill them in.
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

// Main runs the command line args (without the program name) with the real
// process's environment and the given streams, and returns the exit status.
// It returns once ctx ends (status 0: Ctrl-C is a normal way to stop a watch)
// or the command is done; every goroutine it started has returned by then.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Env{Stdout: stdout, Stderr: stderr}.Run(ctx, args)
}

// Run is Main with e's environment.
func (e Env) Run(ctx context.Context, args []string) int {
	e = e.withDefaults()
	err := e.dispatch(ctx, args)
	var ue *usageError
	var se statusError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.Stderr, "podwatch: %v\n", ue)
		if ue.cmd != "" {
			fmt.Fprintf(e.Stderr, "Run 'podwatch %s --help' for usage.\n", ue.cmd)
		} else {
			fmt.Fprintln(e.Stderr, "Run 'podwatch --help' for usage.")
		}
		return exitUsage
	case errors.As(err, &se):
		fmt.Fprintf(e.Stderr, "podwatch: %s\n", oneLine(err.Error()))
		return se.ExitStatus()
	default:
		fmt.Fprintf(e.Stderr, "podwatch: %s\n", oneLine(err.Error()))
		return exitError
	}
}

func (e Env) withDefaults() Env {
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

// oneLine keeps an error to the one line the command promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

const topUsage = `podwatch watches the pods bound to a node the way a kubelet does.

Usage:
  podwatch watch  [flags]                 list and watch pods, print every update
  podwatch watch  --replay FIXTURE        the same against a recorded fixture
  podwatch record --out DIR [watch flags] watch and save the HTTP exchanges as a fixture
  podwatch serve  FIXTURE [--addr ADDR]   serve a recorded fixture as a fake apiserver
  podwatch bench  sync|decode             benchmarks (docs/BENCH.md)
  podwatch proxy  [--listen HOST:PORT]    forward any client to the cluster, tracing and recording it
  podwatch check  [flags]                 is this server a faithful watch server? (docs/CHECKS.md)
  podwatch diff   A B                     where two recordings or JSON traces part (docs/TRACE.md)
  podwatch probe  --write [flags]         time a canary pod's annotation on the node's watch
  podwatch version                        print the version

Run 'podwatch COMMAND --help' for a command's flags.
`

func (e Env) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, topUsage)
		return &usageError{msg: "no command given"}
	}
	switch cmd, cmdArgs := args[0], args[1:]; cmd {
	case "watch":
		return e.watchCmd(ctx, cmdArgs)
	case "record":
		return e.recordCmd(ctx, cmdArgs)
	case "serve":
		return e.serveCmd(ctx, cmdArgs)
	case "version":
		return e.versionCmd(cmdArgs)
	case "bench":
		return e.benchCmd(ctx, cmdArgs)
	case "proxy":
		return e.proxyCmd(ctx, cmdArgs)
	case "check":
		return e.checkCmd(ctx, cmdArgs)
	case "diff":
		return e.diffCmd(ctx, cmdArgs)
	case "probe":
		return e.probeCmd(ctx, cmdArgs)
	case "help", "-h", "-help", "--help":
		if len(cmdArgs) > 0 && cmdArgs[0] != "help" {
			return e.dispatch(ctx, []string{cmdArgs[0], "--help"})
		}
		fmt.Fprint(e.Stdout, topUsage)
		return errHelp
	default:
		return &usageError{msg: fmt.Sprintf("unknown command %q", cmd)}
	}
}
