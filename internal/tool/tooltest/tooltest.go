// Package tooltest holds the check every tool main's tests share: that a bad
// command line stops the tool with the convention's exit status and says why,
// before it starts any work. Only tests import it.
package tooltest

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/podwatch/podwatch/internal/tool"
)

// Case is one command line and the exit status it must end with.
type Case struct {
	Args []string
	Want int
}

// CommonCases are the command lines every tool refuses or answers alike:
// -help, an unknown flag, a stray argument.
var CommonCases = []Case{
	{[]string{"-help"}, tool.ExitOK},
	{[]string{"-no-such-flag"}, tool.ExitUsage},
	{[]string{"stray"}, tool.ExitUsage},
}

// CheckCommandLine runs main with CommonCases and the tool's own extra cases,
// and fails each that ends with another status or prints nothing on stderr.
func CheckCommandLine(t *testing.T, main tool.Main, extra ...Case) {
	t.Helper()
	for _, tc := range append(append([]Case(nil), CommonCases...), extra...) {
		var stderr bytes.Buffer
		if got := main(context.Background(), tc.Args, io.Discard, &stderr); got != tc.Want {
			t.Errorf("%q: exit %d, want %d; stderr:\n%s", tc.Args, got, tc.Want, stderr.String())
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: nothing on stderr, want the usage or the error", tc.Args)
		}
	}
}
