package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/tool"
)

// Main runs the command line args (without the program name), reports on
// stderr, and returns the exit status. Ending ctx stops a build under way.
func Main(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := tool.NewFlagSet("cluster-bins", stderr)
	binDir := fs.String("bin-dir", "", "`folder` for the binaries (default $"+cluster.BinDirEnv+" or <repo>/.cache/bin)")
	only := fs.String("only", "", "comma-separated `names` to build (default all: "+strings.Join(cluster.BinaryNames(), ",")+")")
	if status, ok := tool.Parse(fs, args); !ok {
		return status
	}
	names := cluster.BinaryNames()
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	dir := *binDir
	if dir == "" {
		d, err := cluster.DefaultBinDir()
		if err != nil {
			fmt.Fprintln(stderr, "cluster-bins:", err)
			return tool.ExitError
		}
		dir = d
	}
	start := time.Now()
	fmt.Fprintf(stderr, "cluster-bins: ensuring %s in %s (a cold build takes minutes)\n", strings.Join(names, ", "), dir)
	if err := cluster.Ensure(ctx, dir, names...); err != nil {
		fmt.Fprintln(stderr, "cluster-bins:", err)
		return tool.ExitError
	}
	fmt.Fprintf(stderr, "cluster-bins: ready in %s\n", time.Since(start).Round(100*time.Millisecond))
	return tool.ExitOK
}
