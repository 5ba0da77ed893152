package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
)

// testCommand builds cmd/podwatch and runs `podwatch watch` as a process
// with a kubeconfig for the node's token, as a person would, and checks the
// JSON lines it prints while pods change: the first state, then one update
// per change, and an exit of its own once --max-events is reached. Traced,
// it runs with --trace-file and checks the trace too.
func testCommand(t *testing.T, ctx context.Context, c *cluster.Cluster, m clientMode) {
	ns := m.ns("cli")
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "first", node, nil); err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	initial, _, err := serverState(ctx, c)
	if err != nil {
		t.Fatalf("list pods as admin: %v", err)
	}

	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	// The changes below make four watch events on node-a: ADDED, MODIFIED
	// (labels), MODIFIED (deletionTimestamp), DELETED.
	args := []string{"watch", "--kubeconfig", kubeconfig, "--node", node, "-o", "json", "--max-events", "4"}
	traceFile := filepath.Join(dir, "trace.jsonl")
	if m.traced {
		args = append(args, "--trace-file", traceFile, "--trace-format", "json")
	}
	p := startCommand(t, ctx, bin, args...)

	first := p.next(t)
	if first.Op != "ADD" || first.Source != "api" {
		t.Fatalf("first update: got %s from %s, want ADD from api", first.Op, first.Source)
	}
	if diff := cmp.Diff(initial, first.states()); diff != "" {
		t.Fatalf("first update's pods (-server +printed):\n%s", diff)
	}

	created, err := c.CreatePod(ctx, ns, "second", node, nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "elsewhere", otherNode, nil); err != nil {
		t.Fatalf("CreatePod on %s: %v", otherNode, err)
	}
	relabelled, err := c.UpdatePodLabels(ctx, ns, "second", map[string]string{"step": "2"})
	if err != nil {
		t.Fatalf("UpdatePodLabels: %v", err)
	}
	if _, err := c.DeletePod(ctx, ns, "second", &zero); err != nil {
		t.Fatalf("DeletePod: %v", err)
	}

	want := []string{
		"ADD api " + ns + "/second rv=" + created,
		"UPDATE api " + ns + "/second rv=" + relabelled,
		"DELETE api " + ns + "/second deleting",
		"REMOVE api " + ns + "/second deleting",
	}
	var got []string
	for range want {
		u := p.next(t)
		for _, pod := range u.Pods {
			s := pod.state()
			entry := u.Op + " " + u.Source + " " + s.Key
			if s.Deleting {
				entry += " deleting"
			} else {
				entry += " rv=" + s.RV
			}
			got = append(got, entry)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("printed updates (-want +got):\n%s", diff)
	}
	if err := p.waitExit(t); err != nil {
		t.Fatalf("podwatch after --max-events: %v; stderr:\n%s", err, p.stderr())
	}
	if extra := p.rest(); len(extra) > 0 {
		t.Errorf("lines after the last update: %q", extra)
	}
	t.Logf("podwatch stderr: %q", p.stderr())
	if m.traced {
		checkRealTrace(t, traceFile, c.NodeToken)
	}
}

// checkRealTrace reads the JSON trace of a run against the real apiserver: it
// spoke HTTP/2 over TLS, the trace tapped its frames, it tells the watch events
// and pushes, and the node's token appears nowhere in it.
func checkRealTrace(t *testing.T, path, token string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	if strings.Contains(string(data), token) {
		t.Fatalf("the trace holds the bearer token")
	}
	kinds := map[string]int{}
	protos := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var step struct {
			Kind     string `json:"kind"`
			Response struct {
				Proto string `json:"proto"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("trace line %d is not JSON: %v: %q", i+1, err, line)
		}
		kinds[step.Kind]++
		if step.Kind == "response" {
			protos[step.Response.Proto] = true
		}
	}
	if !protos["HTTP/2.0"] || kinds["frame"] == 0 {
		t.Fatalf("trace: responses over %v, %d frames; want HTTP/2.0 with its frames tapped", protos, kinds["frame"])
	}
	if kinds["request"] < 1 || kinds["response"] < 1 || kinds["event"] < 4 || kinds["push"] < 5 {
		t.Fatalf("trace steps %v: want the watch list's request and response, the 4 events and a push for each change", kinds)
	}
}

// buildCommand builds cmd/podwatch into dir. It fails the test if the
// command does not build: it must exist by now.
func buildCommand(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "podwatch")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/podwatch/podwatch/cmd/podwatch").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd/podwatch: %v\n%s", err, out)
	}
	return bin
}

// writeKubeconfig writes, as dir/name, a kubeconfig for c that sends token,
// and returns its path.
func writeKubeconfig(t *testing.T, c *cluster.Cluster, dir, name, token string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, c.Kubeconfig(token), 0o600); err != nil {
		t.Fatalf("write kubeconfig: %v", err)
	}
	return path
}

// printedUpdate is one line of `podwatch watch -o json`.
type printedUpdate struct {
	Op     string      `json:"op"`
	Source string      `json:"source"`
	Pods   []serverPod `json:"pods"`
}

func (u printedUpdate) states() []string {
	var pods []podState
	for _, p := range u.Pods {
		pods = append(pods, p.state())
	}
	return lines(pods)
}

// process is a running podwatch whose stdout lines arrive on a channel.
type process struct {
	cmd    *exec.Cmd
	lines  chan string
	read   chan struct{} // closed when stdout ended
	stop   chan struct{} // closed by the cleanup: stop reading
	exited chan struct{} // closed when the process has been waited for
	err    error         // of Wait, once exited is closed

	mu     sync.Mutex
	errBuf bytes.Buffer
}

func startCommand(t *testing.T, ctx context.Context, bin string, args ...string) *process {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	p := &process{cmd: cmd, lines: make(chan string, 100), read: make(chan struct{}), stop: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = lockedWriter{p}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start podwatch: %v", err)
	}
	go func() {
		defer close(p.read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			case <-p.stop:
				return
			}
		}
	}()
	go func() {
		<-p.read // Wait closes stdout: read it all first
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		close(p.stop)
		select {
		case <-p.exited:
			return
		default:
		}
		// Still running: the test failed before it ended by itself.
		_ = cmd.Process.Kill()
		select {
		case <-p.exited:
		case <-time.After(wait):
			t.Errorf("podwatch (pid %d) did not end within %s of a kill", cmd.Process.Pid, wait)
		}
		t.Logf("podwatch stderr:\n%s", p.stderr())
	})
	return p
}

type lockedWriter struct{ p *process }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.errBuf.Write(b)
}

func (p *process) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errBuf.String()
}

// nextLine returns the next line printed, failing t if none comes within
// wait or stdout ends first.
func (p *process) nextLine(t *testing.T) string {
	t.Helper()
	select {
	case line := <-p.lines:
		return line
	case <-p.read:
		// Lines read before the end may still be queued: a select picks
		// among ready cases at random.
		select {
		case line := <-p.lines:
			return line
		default:
			t.Fatalf("podwatch's output ended before the next line; stderr:\n%s", p.stderr())
		}
	case <-time.After(wait):
		t.Fatalf("nothing printed within %s; stderr:\n%s", wait, p.stderr())
	}
	return ""
}

// next returns the next printed update, failing t as nextLine does.
func (p *process) next(t *testing.T) printedUpdate {
	t.Helper()
	line := p.nextLine(t)
	var u printedUpdate
	if err := json.Unmarshal([]byte(line), &u); err != nil {
		t.Fatalf("line %q is not an update: %v", line, err)
	}
	for _, pod := range u.Pods {
		if pod.Spec.NodeName != node {
			t.Fatalf("printed %s/%s of node %q, want only %s's pods", pod.Metadata.Namespace, pod.Metadata.Name, pod.Spec.NodeName, node)
		}
	}
	return u
}

// waitExit waits for the process to end by itself and returns why it
// failed, nil for exit status 0.
func (p *process) waitExit(t *testing.T) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(wait):
		return errors.New("still running after " + wait.String())
	}
}

// rest returns the lines printed but not yet read; call it after exit.
func (p *process) rest() []string {
	var out []string
	for {
		select {
		case l := <-p.lines:
			out = append(out, strings.TrimSpace(l))
		default:
			return out
		}
	}
}
