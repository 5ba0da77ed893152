package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/podwatch/podwatch/internal/tool"
)

// A bad command line stops cluster-bins before it starts any work.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"-help"}, tool.ExitOK},
		{[]string{"-no-such-flag"}, tool.ExitUsage},
		{[]string{"stray"}, tool.ExitUsage},
		{[]string{"-bin-dir", t.TempDir(), "-only", "kubectl-0.1"}, tool.ExitError},
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
