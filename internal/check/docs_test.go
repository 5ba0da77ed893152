package check

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// docs/CHECKS.md has a section for every check, in battery order, and for
// no other.
func TestChecksDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^### ([a-z0-9-]+)$`).FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1])
	}
	if want := Names(); !slices.Equal(got, want) {
		t.Fatalf("docs/CHECKS.md sections %v, want the battery %v", got, want)
	}
}
