package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLayoutTableNamesEveryPackage holds README.md's layout table (the one
// headed "| package | what it is |") to the tree: every directory that
// holds a Go package (the main module's and the nested modules', testdata
// aside) is named in its first column, and every path it names exists.
func TestLayoutTableNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := layoutTable(t, string(readme))
	dirs := packageDirs(t, root)
	for _, d := range dirs {
		if !named[d] {
			t.Errorf("README.md's layout table does not name %s", d)
		}
	}
	for d := range named {
		if st, err := os.Stat(filepath.Join(root, d)); err != nil || !st.IsDir() {
			t.Errorf("README.md's layout table names %s, which is not a directory", d)
		} else if !slices.Contains(dirs, d) && d != "testdata" {
			t.Errorf("README.md's layout table names %s, which holds no Go package", d)
		}
	}
}

var backticked = regexp.MustCompile("`([^`]+)`")

// layoutTable returns the paths the layout table's first column names,
// without a trailing slash.
func layoutTable(t *testing.T, readme string) map[string]bool {
	t.Helper()
	_, table, ok := strings.Cut(readme, "| package | what it is |")
	if !ok {
		t.Fatal(`README.md has no table headed "| package | what it is |"`)
	}
	named := map[string]bool{}
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			named[strings.TrimSuffix(m[1], "/")] = true
		}
	}
	if len(named) == 0 {
		t.Fatal("README.md's layout table names nothing")
	}
	return named
}

// packageDirs lists, relative to root, the directories holding a .go file,
// testdata, dot and underscore directories aside (Go ignores them too).
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for d := range seen {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}
