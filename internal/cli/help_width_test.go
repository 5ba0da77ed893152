package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// No line of any command's help is wider than a 120-column terminal, where
// it would break inside a word: the summaries are written to 80 columns,
// and each flag's help is folded there.
func TestHelpFitsATerminal(t *testing.T) {
	for _, cmd := range []string{"watch", "record", "serve", "version", "bench", "proxy", "check", "diff", "probe"} {
		r := mustRun(t, cmd, "--help")
		for _, l := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("%s --help: a line of %d columns:\n%s", cmd, n, l)
			}
		}
	}
}
