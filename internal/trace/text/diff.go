package text

import (
	"fmt"
	"unicode/utf8"

	"github.com/podwatch/podwatch/internal/trace"
)

// diffValueCap is how many characters of a changed value a text line shows;
// the JSON trace has them whole.
const diffValueCap = 60

// diffLines are the text lines under a MODIFIED event: one per change, as
// the push line marks them (+ added, ~ replaced, - removed), at most
// listCap of them.
func diffLines(e *trace.Event) []string {
	if e.DiffFrom == "" && len(e.Diff) == 0 {
		return nil
	}
	if len(e.Diff) == 0 {
		return []string{"diff: nothing changed since rv " + e.DiffFrom + " but what --diff leaves out (managedFields, resourceVersion)"}
	}
	var lines []string
	for i, c := range e.Diff {
		if i == listCap {
			lines = append(lines, fmt.Sprintf("and %d more changes (the JSON trace has them all)", len(e.Diff)-listCap))
			break
		}
		lines = append(lines, ChangeText(c))
	}
	return lines
}

// ChangeText is one change on one line, its values cut short:
// "~ /spec/containers/0/image: "nginx:1.27" -> "nginx:1.28"",
// "+ /metadata/labels/tier: "web"", "- /metadata/annotations/a: "b"".
func ChangeText(c trace.Change) string {
	switch c.Op {
	case "add":
		return "+ " + c.Path + ": " + shorten(string(c.Value))
	case "remove":
		return "- " + c.Path + ": " + shorten(string(c.From))
	}
	return "~ " + c.Path + ": " + shorten(string(c.From)) + " -> " + shorten(string(c.Value))
}

// shorten cuts s to diffValueCap characters, marking the cut with "…".
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= diffValueCap {
		return s
	}
	n := 0
	for i := range s {
		if n == diffValueCap-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
