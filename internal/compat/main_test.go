package compat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// podwatchBin is the podwatch binary TestMain builds from this repository,
// so that the servers under test are the ones users run.
var podwatchBin string

// repoRoot is the main module's folder: this module sits two below it.
var repoRoot = func() string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return abs
}()

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "podwatch-compat-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	podwatchBin = filepath.Join(dir, "podwatch")
	build := exec.Command("go", "build", "-o", podwatchBin, "./cmd/podwatch")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "compat: build podwatch: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
