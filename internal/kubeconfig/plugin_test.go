package kubeconfig

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The fake exec credential plugin (testdata/plugin) is built once, on first
// use, so that runs that need none (fuzz workers) do not pay for it. A small
// binary of its own starts much faster than this test binary re-executed,
// which matters under -race.
var (
	pluginOnce sync.Once
	pluginDir  string
	pluginBin  string
	pluginErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

func fakePlugin(t *testing.T) string {
	t.Helper()
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "kubeconfig-plugin")
		if pluginErr != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		bin := filepath.Join(pluginDir, "get-token")
		out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/plugin/main.go").CombinedOutput()
		if err != nil {
			pluginErr = fmt.Errorf("build the fake exec plugin: %v\n%s", err, out)
			return
		}
		pluginBin = bin
	})
	if pluginErr != nil {
		t.Fatal(pluginErr)
	}
	return pluginBin
}
