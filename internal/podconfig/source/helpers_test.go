package source

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	node = "Node-A"
	wait = 10 * time.Second
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatalf("read testdata: %v", err)
	}
	return data
}

// checkGolden compares got with the golden file name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("differs from %s (-want +got):\n%s", path, diff)
	}
}

// names renders pods as "ns/name" for comparison.
func names(pods []*api.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = podconfig.FullName(p)
	}
	return out
}

// collector gathers what a source reports, from the source's goroutine.
type collector struct {
	mu   sync.Mutex
	errs []error
}

func (c *collector) report(_ string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, err)
}

func (c *collector) take() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.errs
	c.errs = nil
	return e
}

// waitFor receives SETs from out until one satisfies ok, skipping the states a
// poll may catch in between (or send twice), and returns it.
func waitFor(t *testing.T, out <-chan podconfig.PodUpdate, what string, ok func(podconfig.PodUpdate) bool) podconfig.PodUpdate {
	t.Helper()
	timeout := time.After(wait)
	var last []string
	for {
		select {
		case u := <-out:
			if u.Op != podconfig.SET || u.Source == "" {
				t.Fatalf("got %v from %q, want SETs with the source named", u.Op, u.Source)
			}
			last = names(u.Pods)
			if ok(u) {
				return u
			}
		case <-timeout:
			t.Fatalf("no SET with %s within %v; the last one held %v", what, wait, last)
		}
	}
}

// waitForSET waits for a SET of exactly the pods want ("ns/name").
func waitForSET(t *testing.T, out <-chan podconfig.PodUpdate, want ...string) podconfig.PodUpdate {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	return waitFor(t, out, fmt.Sprint(want), func(u podconfig.PodUpdate) bool { return cmp.Equal(want, names(u.Pods)) })
}

// writeAtomic writes a manifest the way an editor or a config tool should: to a
// dotfile (which the source ignores), then renamed into place.
func writeAtomic(t *testing.T, path, data string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatalf("write %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatalf("rename %s: %v", tmp, err)
	}
}

// manifest is a small valid pod manifest; extra is YAML appended to its spec.
func manifest(name, image string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n  containers:\n  - name: c\n    image: %s\n", name, image)
}

func errorStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func joinLines(s ...string) string { return strings.Join(s, "\n") }
