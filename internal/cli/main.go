package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/benchcmd"
	"github.com/podwatch/podwatch/internal/cli/checkcmd"
	"github.com/podwatch/podwatch/internal/cli/diffcmd"
	"github.com/podwatch/podwatch/internal/cli/probecmd"
	"github.com/podwatch/podwatch/internal/cli/proxycmd"
	"github.com/podwatch/podwatch/internal/cli/recordcmd"
	"github.com/podwatch/podwatch/internal/cli/servecmd"
	"github.com/podwatch/podwatch/internal/cli/versioncmd"
	"github.com/podwatch/podwatch/internal/cli/watchcmd"
)

// Env is what the command takes from its process (base.Env, which the
// commands are given). The zero value of every field but Stdout and Stderr
// means the real process; tests fill them in.
type Env base.Env

// Main runs the command line args (without the program name) with the real
// process's environment and the given streams, and returns the exit status.
// It returns once ctx ends or the command is done; every goroutine it
// started has returned by then. An interrupt (ctx ending) is a normal way
// to stop a long-running command (watch, record, serve, proxy), which then
// exits 0; a verdict or a report it cuts short (check, diff) exits 130
// (base.Verdict).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Env{Stdout: stdout, Stderr: stderr}.Run(ctx, args)
}

// Run is Main with e's environment.
func (e Env) Run(ctx context.Context, args []string) int {
	env := base.Env(e).WithDefaults()
	err := dispatch(ctx, env, args)
	var ue *base.UsageError
	var se base.StatusError
	switch {
	case err == nil:
		return base.ExitOK
	case errors.Is(err, base.ErrHelp):
		return base.ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "podwatch: %v\n", ue)
		if ue.Cmd != "" {
			fmt.Fprintf(env.Stderr, "Run 'podwatch %s --help' for usage.\n", ue.Cmd)
		} else {
			fmt.Fprintln(env.Stderr, "Run 'podwatch --help' for usage.")
		}
		return base.ExitUsage
	case errors.As(err, &se):
		fmt.Fprintln(env.Stderr, base.Fold("podwatch: ", base.OneLine(err.Error()), env.StderrWidth()))
		return se.ExitStatus()
	default:
		fmt.Fprintln(env.Stderr, base.Fold("podwatch: ", base.OneLine(err.Error()), env.StderrWidth()))
		return base.ExitError
	}
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

func dispatch(ctx context.Context, e base.Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, topUsage)
		return base.Usagef("", "no command given")
	}
	switch cmd, cmdArgs := args[0], args[1:]; cmd {
	case "watch":
		return watchcmd.Run(ctx, e, cmdArgs)
	case "record":
		return recordcmd.Run(ctx, e, cmdArgs)
	case "serve":
		return servecmd.Run(ctx, e, cmdArgs)
	case "version":
		return versioncmd.Run(ctx, e, cmdArgs)
	case "bench":
		return benchcmd.Run(ctx, e, cmdArgs)
	case "proxy":
		return proxycmd.Run(ctx, e, cmdArgs)
	case "check":
		return checkcmd.Run(ctx, e, cmdArgs)
	case "diff":
		return diffcmd.Run(ctx, e, cmdArgs)
	case "probe":
		return probecmd.Run(ctx, e, cmdArgs)
	case "help", "-h", "-help", "--help":
		if len(cmdArgs) > 0 && cmdArgs[0] != "help" {
			return dispatch(ctx, e, []string{cmdArgs[0], "--help"})
		}
		fmt.Fprint(e.Stdout, topUsage)
		return base.ErrHelp
	default:
		return base.Usagef("", "unknown command %q", cmd)
	}
}
