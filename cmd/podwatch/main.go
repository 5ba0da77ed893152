// Command podwatch watches the pods bound to a node the way a kubelet does,
// against a cluster or a recorded fixture. See internal/cli for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/podwatch/podwatch/internal/cli"
)

func main() {
	// Ctrl-C and SIGTERM end the context: the command stops cleanly, and exits
	// 0, or 130 for a verdict or report cut short (see cli.Main).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
