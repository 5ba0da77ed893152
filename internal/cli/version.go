package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release, set at build time with
// -ldflags "-X github.com/podwatch/podwatch/internal/cli.Version=v1.2.3";
// otherwise the module's version or VCS revision, else "dev".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev-" + s.Value[:12]
		}
	}
	return "dev"
}

func (e Env) versionCmd(args []string) error {
	c := newCommand("version", "Usage: podwatch version\n\nPrints podwatch's version, and the Go toolchain and platform it was built for.\n")
	pos, err := c.parse(e.Stdout, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version", "unexpected argument %q", pos[0])
	}
	_, err = fmt.Fprintf(e.Stdout, "podwatch %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
