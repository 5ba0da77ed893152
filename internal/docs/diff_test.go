package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// changeRE finds a change of a diff quoted in running text: one JSON patch
// operation in a code span.
var changeRE = regexp.MustCompile("`(\\{\"op\":[^`]+\\})`")

// TestDiffSection: the changes docs/PROTOCOL.md's --diff section quotes in
// its text (its fenced snippets are checked by TestProtocolSnippets) are
// those the trace of the lifecycle recording tells, kept by internal/cli's
// TestDiffReplay in diff-lifecycle.json.golden, for web-1 at 220 against
// the list's 215.
func TestDiffSection(t *testing.T) {
	section := protocolSection(t, 15)
	golden, err := os.ReadFile(filepath.Join(root, "internal", "cli", "testdata", "diff-lifecycle.json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var web1 string
	for _, line := range strings.Split(string(golden), "\n") {
		if strings.HasPrefix(line, "shop/web-1 rv=220 from=215 ") {
			web1 = line
		}
	}
	if web1 == "" {
		t.Fatalf("the golden diffs have no change of shop/web-1 at 220 from 215:\n%s", golden)
	}
	quoted := changeRE.FindAllStringSubmatch(section, -1)
	if len(quoted) < 2 {
		t.Fatalf("section 15 quotes %d changes; the quoting may have changed", len(quoted))
	}
	for _, q := range quoted {
		if !strings.Contains(web1, q[1]) {
			t.Errorf("section 15 quotes %s, which the trace does not tell of web-1 at 220:\n%s", q[1], web1)
		}
	}
}
