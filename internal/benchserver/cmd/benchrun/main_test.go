package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/podwatch/podwatch/internal/tool"
)

// A bad command line stops benchrun before it starts any work.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"-help"}, tool.ExitOK},
		{[]string{"-no-such-flag"}, tool.ExitUsage},
		{[]string{"stray"}, tool.ExitUsage},
	} {
		var stderr bytes.Buffer
		if got := Main(context.Background(), tc.args, io.Discard, &stderr); got != tc.want {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", tc.args, got, tc.want, stderr.String())
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: nothing on stderr, want the usage or the error", tc.args)
		}
	}
}

// A binary that cannot run fails the run, with its name.
func TestMissingBinary(t *testing.T) {
	var stderr bytes.Buffer
	got := Main(context.Background(), []string{"-benchserver", "/nonexistent/benchserver", "-quick"}, io.Discard, &stderr)
	if got != tool.ExitError || !bytes.Contains(stderr.Bytes(), []byte("benchserver")) {
		t.Fatalf("exit %d, stderr %q: want %d and the binary named", got, stderr.String(), tool.ExitError)
	}
}
