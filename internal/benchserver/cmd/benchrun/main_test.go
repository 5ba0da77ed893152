package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/podwatch/podwatch/internal/tool"
	"github.com/podwatch/podwatch/internal/tool/tooltest"
)

// A bad command line stops benchrun before it starts any work.
func TestCommandLine(t *testing.T) {
	tooltest.CheckCommandLine(t, Main)
}

// A binary that cannot run fails the run, with its name.
func TestMissingBinary(t *testing.T) {
	var stderr bytes.Buffer
	got := Main(context.Background(), []string{"-benchserver", "/nonexistent/benchserver", "-quick"}, io.Discard, &stderr)
	if got != tool.ExitError || !bytes.Contains(stderr.Bytes(), []byte("benchserver")) {
		t.Fatalf("exit %d, stderr %q: want %d and the binary named", got, stderr.String(), tool.ExitError)
	}
}
