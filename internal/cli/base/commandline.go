package base

import (
	"strings"

	"github.com/podwatch/podwatch/internal/mask"
)

// commandLine is the command line c was given, as a shell would read it
// back, with credentials masked: what the HTML page records of the run.
func commandLine(c *Command) string {
	words := []string{"podwatch", c.Name}
	maskNext := false
	for _, a := range c.args {
		switch name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "="); {
		case maskNext:
			a, maskNext = mask.Masked, false
		case strings.HasPrefix(a, "-") && mask.SecretFlag(name):
			if hasValue {
				a = a[:len(a)-len(value)] + mask.Masked
			} else {
				maskNext = true
			}
		default:
			a = mask.URL(a)
		}
		words = append(words, commandWord(a))
	}
	return strings.Join(words, " ")
}

// ShellLine joins words into a command line a POSIX shell reads back as
// those words: a line printed for a person to copy and run.
func ShellLine(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = commandWord(w)
	}
	return strings.Join(quoted, " ")
}

// commandWord is one word of a command line: as it is when a shell reads
// it back unchanged, quoted (by shellQuote) when not.
func commandWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) {
		return s
	}
	return shellQuote(s)
}
