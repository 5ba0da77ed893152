package cli

import (
	"fmt"
	"runtime"

	"github.com/podwatch/podwatch/internal/cli/base"
)

func versionCmd(e base.Env, args []string) error {
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
