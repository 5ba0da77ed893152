package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMediaTypes(t *testing.T) {
	files := []File{
		{Path: "rest/wire/format.go", Data: []byte(`const p = "application/vnd.kubernetes.protobuf"`)},
		{Path: "internal/x/x.go", Data: []byte("package x\n// answers application/cbor-seq\nconst j = \"application/json\"\n")},
		{Path: "internal/x/x_test.go", Data: []byte(`const p = "application/vnd.kubernetes.protobuf"`)},
	}
	var where []string
	for _, v := range MediaTypes(files) {
		where = append(where, v.Where)
	}
	if d := cmp.Diff([]string{"internal/x/x.go:2"}, where); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}

func TestStreamImports(t *testing.T) {
	files := []File{
		{Path: "internal/stream/reader.go", Data: []byte("package stream\n\nimport (\n\t\"io\"\n\t\"github.com/podwatch/podwatch/internal/stream/jsonstr\"\n)\n")},
		{Path: "internal/stream/jsonstr/x.go", Data: []byte("package jsonstr\n\nimport \"github.com/podwatch/podwatch/rest/jsonx\"\n")},
		{Path: "internal/stream/x_test.go", Data: []byte("package stream_test\n\nimport \"github.com/podwatch/podwatch/rest/jsonx\"\n")},
		{Path: "rest/jsonx/framer.go", Data: []byte("package jsonx\n\nimport \"github.com/podwatch/podwatch/internal/stream\"\n")},
	}
	vs := StreamImports(files)
	if len(vs) != 1 || vs[0].Where != "internal/stream/jsonstr/x.go" || !strings.Contains(vs[0].What, "rest/jsonx") {
		t.Errorf("got %v, want internal/stream/jsonstr/x.go importing rest/jsonx alone", vs)
	}
}

func TestPackageSize(t *testing.T) {
	lines := func(n int) []byte { return []byte(strings.Repeat("x\n", n)) }
	files := []File{
		{Path: "a/a.go", Data: lines(MaxPackageLines)},
		{Path: "a/a_test.go", Data: lines(100)},
		{Path: "a/schema_gen.go", Data: lines(100)},
		{Path: "b/b.go", Data: lines(MaxPackageLines / 2)},
		{Path: "b/c.go", Data: lines(MaxPackageLines/2 + 1)},
	}
	vs := PackageSize(files)
	if len(vs) != 1 || vs[0].Where != "b" {
		t.Errorf("got %v, want package b alone (tests and generated files do not count)", vs)
	}
}

func TestImports(t *testing.T) {
	src := []byte("package p\n\nimport \"fmt\"\nimport (\n\tx \"a/b\"\n\t\"c\"\n)\n\nfunc f() { _ = \"import (\\\"no\\\")\" }\n")
	if d := cmp.Diff([]string{"fmt", "a/b", "c"}, imports(src)); d != "" {
		t.Errorf("imports (-want +got):\n%s", d)
	}
}

// The module keeps its rules (make lint checks them too; a test makes a
// broken rule fail make test's package run as well).
func TestModuleKeepsTheRules(t *testing.T) {
	vs, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}
