package base

import "runtime/debug"

// Version is the release, set at build time with
// -ldflags "-X github.com/podwatch/podwatch/internal/cli/base.Version=v1.2.3";
// otherwise Release gives the module's version or VCS revision, else "dev".
var Version = ""

// Release is the version podwatch reports (podwatch version, the
// User-Agent).
func Release() string {
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
