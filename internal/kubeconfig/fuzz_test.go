package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes through parsing and resolution: either a
// *FileError or a Config, and then for every context either a ClientConfig
// with a host or an error; never a panic.
func FuzzLoad(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	more, _ := filepath.Glob("testdata/*/*.yaml")
	seeds = append(append(seeds, more...), "testdata/relative/config")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"clusters":[{"name":"a","cluster":{"server":"https://[::1]:6443"}}],"contexts":[{"name":"a","context":{"cluster":"a"}}]}`))
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz/config")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse error %v is %T, want *FileError", err, err)
			}
			return
		}
		names := []string{""}
		for name := range cfg.Contexts {
			names = append(names, name)
		}
		for _, name := range names {
			cc, err := cfg.ClientConfig(Options{Context: name})
			if err != nil {
				continue
			}
			if cc.Host == "" {
				t.Fatalf("context %q: ClientConfig has no host", name)
			}
			_ = fmt.Sprintf("%v %#v", cc, cfg)
		}
	})
}
