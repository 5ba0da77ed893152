package versioncmd

import (
	"context"
	"fmt"
	"runtime"

	"github.com/podwatch/podwatch/internal/cli/base"
)

// Run runs podwatch version with args, those after the command's name.
func Run(_ context.Context, e base.Env, args []string) error {
	c := base.NewCommand("version", "Usage: podwatch version\n\nPrints podwatch's version, and the Go toolchain and platform it was built for.\n")
	pos, err := c.Parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return base.Usagef("version", "unexpected argument %q", pos[0])
	}
	_, err = fmt.Fprintf(e.Stdout, "podwatch %s (%s %s/%s)\n", base.Release(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
