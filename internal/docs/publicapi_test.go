package docs

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/rules"
)

const module = rules.Module

// publicPackages are the packages a program outside the module imports:
// the one list the code rules keep too.
var publicPackages = rules.Public

// TestPublicAPINamesNoHiddenType reads each public package as its users do,
// with go doc -all, and fails on every line that names a package they cannot
// import (one under internal/) or a third-party package podwatch may swap out:
// a user must be able to write a decoder of their own kind with public pieces.
func TestPublicAPINamesNoHiddenType(t *testing.T) {
	for _, pkg := range publicPackages {
		t.Run(pkg, func(t *testing.T) {
			hidden := hiddenImports(t, "./"+pkg)
			doc := goTool(t, "doc", "-all", "./"+pkg)
			for _, bad := range hiddenMentions(doc, hidden) {
				t.Errorf("go doc %s: %s", pkg, bad)
			}
		})
	}
}

// hiddenImports maps the name of each package pkg imports that a user may
// not see to its import path.
func hiddenImports(t *testing.T, pkg string) map[string]string {
	imports := strings.Fields(goTool(t, "list", "-f", `{{join .Imports " "}}`, pkg))
	hidden := map[string]string{}
	if len(imports) == 0 {
		return hidden
	}
	out := goTool(t, append([]string{"list", "-f", "{{.Name}} {{.ImportPath}} {{.Standard}}"}, imports...)...)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var name, path, standard string
		if f := strings.Fields(line); len(f) == 3 {
			name, path, standard = f[0], f[1], f[2]
		}
		if standard != "true" && isHidden(path) {
			hidden[name] = path
		}
	}
	return hidden
}

// isHidden reports whether path is a package outside the public API: one of
// podwatch's internal packages, or another module's.
func isHidden(path string) bool {
	if path != module && !strings.HasPrefix(path, module+"/") {
		return true
	}
	return strings.Contains(path+"/", "/internal/")
}

// hiddenMentions returns each line of doc that qualifies a name with a hidden
// package, or mentions an internal/ path, with the declaration it is part of.
func hiddenMentions(doc string, hidden map[string]string) []string {
	var bad []string
	decl := ""
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if declRE.MatchString(line) {
			decl = strings.TrimSpace(line)
		}
		for _, m := range qualifiedRE.FindAllStringSubmatch(line, -1) {
			if path, ok := hidden[m[1]]; ok {
				bad = append(bad, m[0]+" ("+path+") in "+decl)
			}
		}
		if strings.Contains(line, "internal/") {
			bad = append(bad, "an internal/ package in "+decl+": "+strings.TrimSpace(line))
		}
	}
	return bad
}

var (
	qualifiedRE = regexp.MustCompile(`\b([a-z][a-z0-9_]*)\.([A-Z][A-Za-z0-9_]*)`)
	declRE      = regexp.MustCompile(`^(func|type|var|const|package) `)
)

func goTool(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("go")
	if err != nil {
		bin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// TestHiddenMentions checks the checker on a doc that breaks both rules.
func TestHiddenMentions(t *testing.T) {
	doc := "package meta\n\nfunc (m *ObjectMeta) WriteJSON(s *jsoniter.Stream)\n    WriteJSON uses the internal/stream reader.\n\nfunc Parse(r *jsonx.Reader)\n"
	got := hiddenMentions(doc, map[string]string{"jsoniter": "github.com/json-iterator/go"})
	want := []string{
		"jsoniter.Stream (github.com/json-iterator/go) in func (m *ObjectMeta) WriteJSON(s *jsoniter.Stream)",
		"an internal/ package in func (m *ObjectMeta) WriteJSON(s *jsoniter.Stream): WriteJSON uses the internal/stream reader.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
