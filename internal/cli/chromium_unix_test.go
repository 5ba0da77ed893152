//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own, which is killed
// whole when cmd's context ends: Chromium's helpers (zygote, renderer, GPU)
// must not outlive a test that gave up on it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
