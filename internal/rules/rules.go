// Package rules holds the rules of podwatch's code that no compiler keeps,
// checked by make lint (cmd/rules) and by this package's tests, so that later
// work keeps the seams the code was built on:
//
//   - MediaTypes: the protobuf and CBOR media types are spelled out in one
//     production file, rest/wire/format.go; every other file names them
//     through its constants or a wire.Format.
//   - StreamImports: internal/stream, the one buffered reader, and its
//     subpackages import no other package of podwatch's: the codecs import
//     it, never the other way.
//   - PackageSize: no package's non-test files (generated *_gen.go aside)
//     run over MaxPackageLines lines: a package that size has more than one
//     reason to change.
//   - PublicDeps: the public packages (Public) do not pull in the CBOR
//     encoder's library, which only podwatch's own servers need.
//
// The rules read the main module only: the nested modules (the
// compatibility suites, the client-go side of the benchmarks, the build
// modules) are other programs, which speak to client-go in its own terms.
package rules

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/podwatch/podwatch/rest/wire"
)

// Module is the main module's path.
const Module = "github.com/podwatch/podwatch"

// Public lists the packages a program outside the module imports.
var Public = []string{"rest", "rest/meta", "rest/api", "rest/jsonx", "rest/protowire", "rest/cborwire", "rest/wire", "watch", "cache"}

// MaxPackageLines bounds a package's non-test, non-generated lines.
const MaxPackageLines = 3500

// mediaTypeHome is the one production file that spells the media types.
const mediaTypeHome = "rest/wire/format.go"

// mediaTypes are the literals only mediaTypeHome may hold.
var mediaTypes = []string{wire.ContentTypeProtobuf, wire.ContentTypeCBOR}

// A Violation is one place a rule is broken.
type Violation struct {
	Rule  string
	Where string // a file or package directory, relative to the module root
	What  string
}

func (v Violation) String() string { return fmt.Sprintf("%s: %s: %s", v.Rule, v.Where, v.What) }

// Check runs every rule over the module rooted at root.
func Check(root string) ([]Violation, error) {
	files, err := goFiles(root)
	if err != nil {
		return nil, err
	}
	var out []Violation
	out = append(out, MediaTypes(files)...)
	out = append(out, StreamImports(files)...)
	out = append(out, PackageSize(files)...)
	deps, err := PublicDeps(root)
	if err != nil {
		return nil, err
	}
	return append(out, deps...), nil
}

// File is one .go file of the main module: its path relative to the root,
// and its content.
type File struct {
	Path string
	Data []byte
}

func (f File) test() bool      { return strings.HasSuffix(f.Path, "_test.go") }
func (f File) generated() bool { return strings.HasSuffix(f.Path, "_gen.go") }
func (f File) dir() string     { return filepath.ToSlash(filepath.Dir(f.Path)) }

// goFiles reads every .go file of the main module under root, leaving out
// nested modules and the directories Go ignores (testdata, dot and
// underscore directories).
func goFiles(root string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, File{Path: rel, Data: data})
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, err
}

// MediaTypes finds the production files other than rest/wire/format.go that
// spell a protobuf or CBOR media type, comments included.
func MediaTypes(files []File) []Violation {
	var out []Violation
	for _, f := range files {
		if f.test() || f.Path == mediaTypeHome {
			continue
		}
		for i, line := range bytes.Split(f.Data, []byte("\n")) {
			for _, mt := range mediaTypes {
				if bytes.Contains(line, []byte(mt)) {
					out = append(out, Violation{"media-types", fmt.Sprintf("%s:%d", f.Path, i+1),
						fmt.Sprintf("spells %q; name it through rest/wire (wire.ContentType..., a wire.Format)", mt)})
				}
			}
		}
	}
	return out
}

// StreamImports finds the files of internal/stream and its subpackages,
// tests aside, that import another package of podwatch's.
func StreamImports(files []File) []Violation {
	var out []Violation
	for _, f := range files {
		if f.test() || (f.dir() != "internal/stream" && !strings.HasPrefix(f.dir(), "internal/stream/")) {
			continue
		}
		for _, imp := range imports(f.Data) {
			if strings.HasPrefix(imp, Module+"/") && !strings.HasPrefix(imp, Module+"/internal/stream") {
				out = append(out, Violation{"stream-imports", f.Path,
					fmt.Sprintf("imports %s: the reader's packages import none of podwatch's (the codecs import them)", imp)})
			}
		}
	}
	return out
}

// imports returns the import paths of a Go file, read from its import
// declarations.
func imports(src []byte) []string {
	var paths []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "import ("):
			in = true
		case in && line == ")":
			return paths
		case in || strings.HasPrefix(line, "import "):
			if i := strings.IndexByte(line, '"'); i >= 0 {
				if j := strings.IndexByte(line[i+1:], '"'); j >= 0 {
					paths = append(paths, line[i+1:i+1+j])
				}
			}
			if !in {
				continue
			}
		case strings.HasPrefix(line, "func ") || strings.HasPrefix(line, "type ") || strings.HasPrefix(line, "var "):
			return paths
		}
	}
	return paths
}

// PackageSize finds the package directories whose non-test, non-generated
// files run over MaxPackageLines lines.
func PackageSize(files []File) []Violation {
	lines := map[string]int{}
	for _, f := range files {
		if f.test() || f.generated() {
			continue
		}
		lines[f.dir()] += bytes.Count(f.Data, []byte("\n"))
	}
	var out []Violation
	for dir, n := range lines {
		if n > MaxPackageLines {
			out = append(out, Violation{"package-size", dir,
				fmt.Sprintf("%d lines of non-test code, over %d: split it along its reasons to change", n, MaxPackageLines)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Where < out[j].Where })
	return out
}

// cborLibrary is the CBOR encoder's library, which the public packages must
// not pull in.
const cborLibrary = "github.com/fxamacker/cbor"

// PublicDeps finds the public packages that depend, directly or not, on the
// CBOR encoder's library, asking the go command from root.
func PublicDeps(root string) ([]Violation, error) {
	var out []Violation
	for _, pkg := range Public {
		cmd := exec.Command("go", "list", "-deps", "./"+pkg)
		cmd.Dir = root
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -deps ./%s: %w", pkg, err)
		}
		for _, dep := range strings.Fields(string(b)) {
			if strings.HasPrefix(dep, cborLibrary) {
				out = append(out, Violation{"public-deps", pkg, "depends on " + dep + ": keep encoders that only podwatch's servers need under internal/"})
			}
		}
	}
	return out, nil
}
