package base

import (
	"net/url"
	"strings"
)

// commandLine is the command line c was given, as a shell would read it
// back, with credentials masked: what the HTML page records of the run.
func commandLine(c *Command) string {
	words := []string{"podwatch", c.Name}
	maskNext := false
	for _, a := range c.args {
		switch name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "="); {
		case maskNext:
			a, maskNext = masked, false
		case strings.HasPrefix(a, "-") && secretFlag(name):
			if hasValue {
				a = a[:len(a)-len(value)] + masked
			} else {
				maskNext = true
			}
		default:
			a = redactURL(a)
		}
		words = append(words, commandWord(a))
	}
	return strings.Join(words, " ")
}

const masked = "<masked>"

// secretFlag says whether a flag's value is a credential, never recorded.
func secretFlag(name string) bool {
	name = strings.ToLower(name)
	return strings.Contains(name, "token") || strings.Contains(name, "password") || strings.Contains(name, "secret")
}

// redactURL masks the password of a URL given with one (https://u:p@host).
func redactURL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
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
