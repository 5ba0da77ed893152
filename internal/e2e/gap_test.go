package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/trace"
)

var updateGapDocs = flag.Bool("update-gap-docs", false,
	"write TestGapAudit's trace lines from the 410 to the relist's push to internal/docs/testdata/gap, which docs/PROTOCOL.md section 14 quotes")

// TestGapAudit runs `podwatch watch` as a process with the JSON trace,
// freezes it with SIGSTOP, and while it is frozen deletes two of its node's
// pods and relabels a third; then compacts etcd and restarts the apiserver,
// and lets it go on with SIGCONT. Its watch resumes, gets a 410, and it
// relists: the trace's gap audit must name exactly the two pods deleted
// while it was frozen and the one whose resourceVersion jumped, with the
// versions it last saw, and count them in its summary.
//
// One step more than the story: the apiserver is killed and started again
// right after the freeze, before anything changes. A frozen process's
// kernel still takes in what the server sends its open watch, and reads it
// all on SIGCONT: the deletions would then arrive as DELETED events, and
// nothing would be missed. The kill cuts that connection first.
func TestGapAudit(t *testing.T) {
	c, ctx := startCluster(t, 8*time.Minute)
	const ns = "gap"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	created := map[string]string{}
	for _, name := range []string{"gone-1", "gone-2", "changed", "kept"} {
		rv, err := c.CreatePod(ctx, ns, name, node, nil)
		if err != nil {
			t.Fatalf("CreatePod %s: %v", name, err)
		}
		created[name] = rv
	}

	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	traceFile := filepath.Join(dir, "trace.jsonl")
	p := startCommand(t, ctx, bin, "watch", "--kubeconfig", kubeconfig, "--node", node, "-o", "json",
		"--trace-file", traceFile, "--trace-format", "json")
	// The first update is the watch list's state; its stream stays open as
	// the watch the freeze interrupts.
	if first := p.next(t); first.Op != "ADD" || len(first.Pods) < len(created) {
		t.Fatalf("first update: %s of %d pods, want ADD of at least %d", first.Op, len(first.Pods), len(created))
	}

	proc := p.cmd.Process
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP podwatch: %v", err)
	}
	// However the test ends, the process must be able to run to its end.
	t.Cleanup(func() { _ = proc.Signal(syscall.SIGCONT) })
	changed := freezeAndChange(t, ctx, c, ns)
	if err := proc.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT podwatch: %v", err)
	}

	if !pollFor(ctx, 4*wait, 200*time.Millisecond, func() bool { return relistedAndPushed(readTrace[tracedStep](t, traceFile)) }) {
		t.Fatalf("no relist and push after it within %s; trace:\n%s", 4*wait, gapTraceTail(traceFile))
	}
	if err := proc.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("SIGINT podwatch: %v", err)
	}
	if err := p.waitExit(t); err != nil {
		t.Fatalf("podwatch after SIGINT: %v; stderr:\n%s", err, p.stderr())
	}
	steps := readTrace[tracedStep](t, traceFile)
	checkGone410(t, steps)
	// In the order the audit tells them: by namespace/name.
	want := []trace.Missed{
		{How: "skipped", Namespace: ns, Name: "changed", From: created["changed"], To: changed},
		{How: "deleted", Namespace: ns, Name: "gone-1", From: created["gone-1"]},
		{How: "deleted", Namespace: ns, Name: "gone-2", From: created["gone-2"]},
	}
	got, states := missedSteps(steps)
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(trace.Missed{}, "Explain", "State")); diff != "" {
		t.Fatalf("the gap audit (-want +got):\n%s", diff)
	}
	if len(states) != 1 || states[0] == "" {
		t.Fatalf("the missed steps name states %v, want the one relisted state's resourceVersion", states)
	}
	stop := steps[len(steps)-1].Stop
	if stop == nil || stop.Missed != len(want) || !cmp.Equal(stop.MissedHow, map[string]int{"deleted": 2, "skipped": 1}) {
		t.Fatalf("the trace's summary %+v: want %d missed, 2 deleted and 1 skipped", stop, len(want))
	}
	if *updateGapDocs {
		writeGapDocs(t, traceFile)
	}
}

// writeGapDocs keeps, for docs/PROTOCOL.md, the trace's lines from the
// first 410 to the push after the relist's replace: the 410, the relist, the
// replace, the missed steps and the push, and the summary.
func writeGapDocs(t *testing.T, traceFile string) {
	t.Helper()
	data, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	started, replaced := false, false
	for line := range strings.Lines(string(data)) {
		var s tracedStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if !started && !isGone410(s) {
			continue
		}
		started = true
		switch {
		case isGone410(s), s.Missed != nil, s.Stop != nil,
			s.Decision != nil && (s.Decision.Step == "relist" || s.Decision.Step == "replace"):
			keep = append(keep, line)
			replaced = replaced || s.Decision != nil && s.Decision.Step == "replace"
		case replaced && s.Kind == trace.KindPush:
			keep = append(keep, line)
			replaced = false
		}
	}
	dir := filepath.Join("..", "docs", "testdata", "gap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real.jsonl"), []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isGone410(s tracedStep) bool {
	return s.Response != nil && s.Response.Status == 410 || s.Event != nil && s.Event.Status != nil && s.Event.Status.Code == 410
}

// freezeAndChange changes the node's pods while podwatch is frozen: first a
// kill and start of the apiserver, which cuts podwatch's watch; then two
// deletions and a relabel; then etcd compacted and the apiserver restarted,
// so that a watch from podwatch's version is too old. It returns the
// relabelled pod's new resourceVersion.
func freezeAndChange(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string) string {
	t.Helper()
	if err := c.KillAPIServer(); err != nil {
		t.Fatalf("KillAPIServer: %v", err)
	}
	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatalf("StartAPIServer: %v", err)
	}
	for _, name := range []string{"gone-1", "gone-2"} {
		if _, err := c.DeletePod(ctx, ns, name, &zero); err != nil {
			t.Fatalf("DeletePod %s: %v", name, err)
		}
	}
	rv, err := c.UpdatePodLabels(ctx, ns, "changed", map[string]string{"while": "frozen"})
	if err != nil {
		t.Fatalf("UpdatePodLabels: %v", err)
	}
	rev, err := c.CompactEtcd(ctx)
	if err != nil {
		t.Fatalf("CompactEtcd: %v", err)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("RestartAPIServer: %v", err)
	}
	t.Logf("while frozen: 2 pods deleted, 1 relabelled at rv %s; etcd compacted at revision %d; apiserver restarted", rv, rev)
	return rv
}

// relistedAndPushed says whether the trace has a relist followed by a
// replace and the push of the replaced state.
func relistedAndPushed(steps []tracedStep) bool {
	relist, replace := false, false
	for _, s := range steps {
		switch {
		case s.Decision != nil && s.Decision.Step == "relist":
			relist = true
		case relist && s.Decision != nil && s.Decision.Step == "replace":
			replace = true
		case replace && s.Kind == trace.KindPush:
			return true
		}
	}
	return false
}

// checkGone410 wants the resume's 410: as an answer, or as an ERROR event
// in a watch's stream.
func checkGone410(t *testing.T, steps []tracedStep) {
	t.Helper()
	if slices.ContainsFunc(steps, isGone410) {
		return
	}
	t.Fatalf("no 410 in the trace, as an answer or an ERROR event")
}

// missedSteps returns the trace's missed steps in order, and the distinct
// states they were found in.
func missedSteps(steps []tracedStep) ([]trace.Missed, []string) {
	var out []trace.Missed
	var states []string
	for _, s := range steps {
		if s.Missed == nil {
			continue
		}
		out = append(out, *s.Missed)
		if len(states) == 0 || states[len(states)-1] != s.Missed.State {
			states = append(states, s.Missed.State)
		}
	}
	return out, states
}

// gapTraceTail is the end of a file, for a failure message.
func gapTraceTail(path string) string {
	data, _ := os.ReadFile(path)
	const keep = 8000
	if len(data) > keep {
		data = data[len(data)-keep:]
	}
	return string(data)
}
