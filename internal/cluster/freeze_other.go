//go:build !unix

package cluster

import (
	"errors"
	"os"
)

// Without SIGSTOP there is no freezing a process from outside.
func pauseProcess(*os.Process) error  { return errors.ErrUnsupported }
func resumeProcess(*os.Process) error { return errors.ErrUnsupported }
