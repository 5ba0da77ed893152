package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// notShipped are packages for tests and tools only: the synthetic benchmark
// server, and the harness that builds and runs kube-apiserver and etcd.
var notShipped = []string{
	"github.com/podwatch/podwatch/internal/benchserver",
	"github.com/podwatch/podwatch/internal/cluster",
}

// The program links none of them, nor anything under them.
func TestShipsNoTooling(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != "github.com/podwatch/podwatch/cmd/podwatch" {
		t.Fatalf("go list -deps printed %q, want the program's dependencies ending with itself", out)
	}
	for _, dep := range deps {
		for _, banned := range notShipped {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("podwatch links %s, which is for tests and tools only", dep)
			}
		}
	}
}
