//go:build !unix

package cli

import "os/exec"

// ownProcessGroup leaves cmd as it is: only Unix has process groups to kill.
func ownProcessGroup(*exec.Cmd) {}
