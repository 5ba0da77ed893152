package main

import (
	"testing"

	"github.com/podwatch/podwatch/internal/tool"
	"github.com/podwatch/podwatch/internal/tool/tooltest"
)

// A bad command line stops cluster-bins before it starts any work.
func TestCommandLine(t *testing.T) {
	tooltest.CheckCommandLine(t, Main, tooltest.Case{Args: []string{"-bin-dir", t.TempDir(), "-only", "kubectl-0.1"}, Want: tool.ExitError})
}
