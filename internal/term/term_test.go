package term

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Neither a regular file nor a pipe is a terminal; where the tty driver is
// asked, nor is /dev/null, a character device.
func TestNotTerminals(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	files := map[string]*os.File{"a regular file": f, "a pipe's reader": r, "a pipe's writer": w}
	askTTYDriver := runtime.GOOS == "linux" || runtime.GOOS == "darwin"
	if null, err := os.Open(os.DevNull); err == nil && askTTYDriver {
		defer null.Close()
		files[os.DevNull] = null
	}
	for name, f := range files {
		if IsTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}

// A file or a pipe has no width: only a terminal does.
func TestNoWidthOffTerminals(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{"a regular file": f, "a pipe's writer": w} {
		if n, ok := Width(f); ok {
			t.Errorf("%s has a width of %d", name, n)
		}
	}
}
