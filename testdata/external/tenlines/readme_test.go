package tenlines

import (
	"os"
	"strings"
	"testing"
)

// TestREADMESnippet keeps the README's "library in ten lines" and this
// package's code between its README markers the same, line for line.
func TestREADMESnippet(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile("tenlines.go")
	if err != nil {
		t.Fatal(err)
	}
	got, want := readmeSnippet(t, string(readme)), markedCode(string(code))
	if got != want {
		t.Fatalf("README.md's snippet differs from tenlines.go's marked code.\nREADME:\n%s\ncode:\n%s", got, want)
	}
}

// readmeSnippet is the first ```go block after the heading "## The library in
// ten lines".
func readmeSnippet(t *testing.T, readme string) string {
	_, after, ok := strings.Cut(readme, "## The library in ten lines\n")
	if !ok {
		t.Fatal(`README.md has no "## The library in ten lines" section`)
	}
	_, block, ok := strings.Cut(after, "```go\n")
	if !ok {
		t.Fatal("the README section has no ```go block")
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("the README's ```go block does not end")
	}
	return block
}

// markedCode joins the regions between "// README begin" and "// README end"
// lines with a blank line, each taken out of its indentation.
func markedCode(code string) string {
	var regions []string
	for _, part := range strings.Split(code, "// README begin\n")[1:] {
		region, _, _ := strings.Cut(part, "// README end")
		lines := strings.Split(strings.TrimRight(region, "\t"), "\n")
		indent := len(lines[0]) - len(strings.TrimLeft(lines[0], "\t"))
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, strings.Repeat("\t", indent))
		}
		regions = append(regions, strings.TrimRight(strings.Join(lines, "\n"), "\n")+"\n")
	}
	return strings.Join(regions, "\n")
}
