package compat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
)

// kubectlBuildTimeout bounds building kubectl when `make cluster-bins` has
// not: a cold build takes a few minutes on 2 cores.
const kubectlBuildTimeout = 15 * time.Minute

// kubectlPath returns the named kubectl from the cluster harness's bin
// folder, building it first if it is missing.
func kubectlPath(t *testing.T, name string) string {
	t.Helper()
	dir, err := cluster.DefaultBinDir()
	if err != nil {
		t.Fatalf("kubectl bin folder: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubectlBuildTimeout)
	defer cancel()
	if err := cluster.Ensure(ctx, dir, name); err != nil {
		t.Fatalf("build %s: %v", name, err)
	}
	return filepath.Join(dir, name)
}

// kubectlWatch is the watch a person points at a server to see the pods of
// one node change.
func kubectlWatchArgs(server string) []string {
	return []string{"get", "pods", "-A", "--field-selector", "spec.nodeName=" + kubeletNode, "--watch", "-o", "json", "--server", server}
}

// TestKubectlWatchesReplay runs `kubectl get pods -A --field-selector
// spec.nodeName=node-a --watch -o json` (kubectl 1.37 and 1.32) against
// `podwatch serve` of the lifecycle fixture: it must print the recorded
// changes, shop/web-4 at resourceVersion 230 among them, each a version the
// recording holds and none older than one printed before it for its pod.
func TestKubectlWatchesReplay(t *testing.T) {
	dir := filepath.Join(repoRoot, "testdata", "fixtures", "lifecycle")
	steps := fixtureSteps(t, dir)
	known := recordedVersions(steps)
	first := timelineOf(t, steps)[0]
	var want []string // every change the recording shows after its first state
	for _, s := range steps {
		if s.snapshot == nil && s.rv > first.rv {
			want = append(want, fmt.Sprintf("%s@%d", s.key, s.rv))
		}
	}
	if !slices.Contains(want, "shop/web-4@230") {
		t.Fatalf("the lifecycle recording no longer ends with shop/web-4@230: changes %v", want)
	}
	for _, name := range []string{cluster.Kubectl, cluster.KubectlOld} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kubectl := kubectlPath(t, name)
			srv := startServe(t, dir, "--speed", "1")
			run := runKubectlUntil(t, kubectl, kubectlWatchArgs(srv.URL), convergeBound, func(seen []string) bool {
				return containsAll(seen, want)
			})
			if missing := missingFrom(run.printed, want); len(missing) > 0 {
				how := fmt.Sprintf("within %v", convergeBound)
				if run.exited {
					how = fmt.Sprintf("before it exited (%v)", run.err)
				}
				t.Errorf("kubectl did not print %v %s; it printed %v\nkubectl said:\n%s", missing, how, run.printed, run.stderr)
			}
			last := map[string]int64{}
			for _, v := range run.printed {
				key, rv := splitVersion(t, v)
				if !known[v] {
					t.Errorf("kubectl printed %s, a version the recording never had", v)
				}
				if rv < last[key] {
					t.Errorf("kubectl printed %s after %s@%d: back in time", v, key, last[key])
				}
				last[key] = max(last[key], rv)
			}
		})
	}
}

// recordedVersions is every pod version the recording shows, as "ns/name@rv".
func recordedVersions(steps []step) map[string]bool {
	out := map[string]bool{}
	for _, s := range steps {
		if s.snapshot == nil {
			out[fmt.Sprintf("%s@%d", s.key, s.rv)] = true
		}
		for k, rv := range s.snapshot {
			out[fmt.Sprintf("%s@%d", k, rv)] = true
		}
	}
	return out
}

func containsAll(have, want []string) bool { return len(missingFrom(have, want)) == 0 }

func missingFrom(have, want []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

func splitVersion(t *testing.T, v string) (key string, rv int64) {
	t.Helper()
	i := strings.LastIndexByte(v, '@')
	rv, err := parseRV(v[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("version %q is not ns/name@rv", v)
	}
	return v[:i], rv
}

// kubectlRun is what one kubectl run printed, in order (each pod as
// "ns/name@rv" from JSON output, each line from text output); its stderr;
// and whether it exited on its own, with what error.
type kubectlRun struct {
	printed []string
	stderr  string
	exited  bool
	err     error
}

// runKubectlUntil runs kubectl with a home and kubeconfig of its own until
// done holds for what it printed, it exits, or bound passes; what it prints
// is JSON (-o json), read as "ns/name@rv" for each pod.
func runKubectlUntil(t *testing.T, kubectl string, args []string, bound time.Duration, done func([]string) bool) kubectlRun {
	t.Helper()
	return runKubectlReading(t, kubectl, args, bound, done, readPodVersions)
}

// runKubectlLines is runKubectlUntil for kubectl's own text output: what it
// printed is its lines.
func runKubectlLines(t *testing.T, kubectl string, args []string, bound time.Duration, done func([]string) bool) kubectlRun {
	t.Helper()
	return runKubectlReading(t, kubectl, args, bound, done, readLines)
}

// A printReader reads kubectl's output: each call to the function it
// returns gives what the next piece of the output printed, and false once
// the output ends.
type printReader func(out io.Reader) func() ([]string, bool)

// readPodVersions reads JSON output: each object a pod, or a list of them.
func readPodVersions(out io.Reader) func() ([]string, bool) {
	dec := json.NewDecoder(out)
	return func() ([]string, bool) {
		var obj struct {
			Kind     string       `json:"kind"`
			Metadata wireMeta     `json:"metadata"`
			Items    []wireObject `json:"items"`
		}
		if err := dec.Decode(&obj); err != nil {
			return nil, false // kubectl ended, or was stopped at the bound
		}
		if !strings.HasSuffix(obj.Kind, "List") {
			return []string{fmt.Sprintf("%s/%s@%s", obj.Metadata.Namespace, obj.Metadata.Name, obj.Metadata.ResourceVersion)}, true
		}
		var printed []string
		for _, it := range obj.Items {
			printed = append(printed, fmt.Sprintf("%s/%s@%s", it.Metadata.Namespace, it.Metadata.Name, it.Metadata.ResourceVersion))
		}
		return printed, true
	}
}

// readLines reads text output a line at a time.
func readLines(out io.Reader) func() ([]string, bool) {
	sc := bufio.NewScanner(out)
	return func() ([]string, bool) {
		if !sc.Scan() {
			return nil, false
		}
		return []string{sc.Text()}, true
	}
}

func runKubectlReading(t *testing.T, kubectl string, args []string, bound time.Duration, done func([]string) bool, read printReader) kubectlRun {
	t.Helper()
	home := t.TempDir()
	kubeconfig := filepath.Join(home, "config")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, append(args, "--cache-dir", filepath.Join(home, "cache"))...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+kubeconfig)
	cmd.WaitDelay = 5 * time.Second
	var errBuf syncBuffer
	cmd.Stderr = &errBuf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("kubectl stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kubectl: %v", err)
	}
	var printed []string
	satisfied := false
	next := read(out)
	for {
		if satisfied = done(printed); satisfied {
			break
		}
		more, ok := next()
		if !ok {
			break
		}
		printed = append(printed, more...)
	}
	timedOut := ctx.Err() != nil
	if satisfied {
		cancel()
	}
	// Otherwise kubectl closed its output and is exiting: wait for its own
	// exit status (ctx still bounds the wait).
	err = cmd.Wait()
	return kubectlRun{printed: printed, stderr: errBuf.String(), exited: !satisfied && !timedOut, err: err}
}
