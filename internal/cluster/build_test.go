package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRepoRootHasNestedModules(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("repoRoot: %v", err)
	}
	for _, b := range binaries {
		for _, f := range []string{"go.mod", "go.sum"} {
			if _, err := os.Stat(filepath.Join(root, b.module, f)); err != nil {
				t.Fatalf("%s of %s: %v", f, b.name, err)
			}
		}
	}
}

func TestModuleStampFollowsGoSum(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}
	b := binary{name: "x", pkg: "example.com/x"}
	write("go.mod", "module example.com/x\n")
	write("go.sum", "a v1 h1:aaa\n")
	first, err := moduleStamp(dir, b)
	if err != nil {
		t.Fatalf("moduleStamp: %v", err)
	}
	again, err := moduleStamp(dir, b)
	if err != nil {
		t.Fatalf("moduleStamp again: %v", err)
	}
	if again != first {
		t.Fatalf("stamp of unchanged files: got %s, want %s", again, first)
	}
	write("go.sum", "a v2 h1:bbb\n")
	changed, err := moduleStamp(dir, b)
	if err != nil {
		t.Fatalf("moduleStamp after change: %v", err)
	}
	if changed == first {
		t.Fatalf("stamp did not change with go.sum: %s", changed)
	}
	b.flags = []string{"-ldflags=-X a.b=c"}
	flagged, err := moduleStamp(dir, b)
	if err != nil {
		t.Fatalf("moduleStamp with flags: %v", err)
	}
	if flagged == changed {
		t.Fatalf("stamp did not change with build flags: %s", flagged)
	}
}

func TestGoBuildFailureIsBuildError(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.26\n",
		"main.go": "package main\n\nfunc main() { undefinedThing() }\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := goBuild(ctx, dir, filepath.Join(dir, "out"), binary{name: "broken", pkg: "."})
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("goBuild: got %v, want a *BuildError", err)
	}
	if be.Binary != "broken" || !strings.Contains(be.Output, "undefinedThing") {
		t.Fatalf("BuildError: got binary %q output %q, want broken and the compiler's complaint", be.Binary, be.Output)
	}
}

func TestEnsureRejectsUnknownName(t *testing.T) {
	dir := t.TempDir()
	err := Ensure(context.Background(), dir, Kubectl, "kubectl-0.1")
	if err == nil {
		t.Fatalf("Ensure of an unknown binary: got nil error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Ensure with an unknown name built or locked something first: %v", entries)
	}
}
