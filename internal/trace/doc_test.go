package trace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDocNamesEveryKind fails when the package doc's list of steps leaves
// out a kind of step, or lists one that is gone: the kinds are read from
// the constants of type Kind in the package's source, so a new one cannot
// be added without the doc telling it.
func TestDocNamesEveryKind(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var kinds, doc []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc = append(doc, f.Doc.Text())
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Kind" {
					continue
				}
				for _, val := range v.Values {
					s, err := strconv.Unquote(val.(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					kinds = append(kinds, s)
				}
			}
		}
	}
	if len(doc) != 1 {
		t.Fatalf("%d files hold a package doc, want one (doc.go)", len(doc))
	}
	var listed []string
	_, steps, _ := strings.Cut(doc[0], "\n# Steps\n")
	steps, _, _ = strings.Cut(steps, "\n# ")
	for _, line := range strings.Split(steps, "\n") {
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			kind, _, _ := strings.Cut(item, ":")
			listed = append(listed, kind)
		}
	}
	slices.Sort(kinds)
	slices.Sort(listed)
	if len(kinds) < 13 {
		t.Fatalf("found only the kinds %q in the source", kinds)
	}
	if !slices.Equal(kinds, listed) {
		t.Errorf("the package doc's \"Steps\" lists the kinds\n  %q\nthe source has\n  %q", listed, kinds)
	}
}
