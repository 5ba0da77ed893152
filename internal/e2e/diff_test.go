package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cluster"
)

// testDiff runs `podwatch watch --diff -o json` in protobuf, the kubelet's
// format, against the real apiserver while a pod's image and then its
// labels change: each UPDATE line tells exactly the fields changed (the
// managedFields and resourceVersion the server rewrote are left out), and
// the trace's MODIFIED events tell the same, each against the version
// before.
func testDiff(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "diff"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	created, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"})
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	traceFile := filepath.Join(dir, "trace.jsonl")
	p := startCommand(t, ctx, bin, "watch", "--kubeconfig", kubeconfig, "--node", node, "-o", "json", "--diff",
		"--content-type", "protobuf", "--max-events", "2", "--trace-file", traceFile, "--trace-format", "json")
	if first := p.next(t); first.Op != "ADD" {
		t.Fatalf("first update: %s, want ADD", first.Op)
	}
	imaged, err := c.SetPodImage(ctx, ns, "web", "registry.invalid/web:2")
	if err != nil {
		t.Fatalf("SetPodImage: %v", err)
	}
	if _, err := c.UpdatePodLabels(ctx, ns, "web", map[string]string{"app": "web", "step": "2"}); err != nil {
		t.Fatalf("UpdatePodLabels: %v", err)
	}
	want := []string{
		`UPDATE diff/web [{"op":"replace","path":"/metadata/generation","from":1,"value":2},` +
			`{"op":"replace","path":"/spec/containers/0/image","from":"` + cluster.PodImage + `","value":"registry.invalid/web:2"}]`,
		`UPDATE diff/web [{"op":"add","path":"/metadata/labels/step","value":"2"}]`,
	}
	var got []string
	for range want {
		var u struct {
			Op   string                     `json:"op"`
			Diff map[string]json.RawMessage `json:"diff"`
		}
		line := p.nextLine(t)
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		for pod, changes := range u.Diff {
			got = append(got, u.Op+" "+pod+" "+string(changes))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("-o json's diffs (-want +got):\n%s", diff)
	}
	if err := p.waitExit(t); err != nil {
		t.Fatalf("podwatch after --max-events: %v; stderr:\n%s", err, p.stderr())
	}
	traced := tracedDiffs(t, traceFile)
	wantTraced := []string{
		"diff/web from " + created + " " + strings.TrimPrefix(want[0], "UPDATE diff/web "),
		"diff/web from " + imaged + " " + strings.TrimPrefix(want[1], "UPDATE diff/web "),
	}
	if diff := cmp.Diff(wantTraced, traced); diff != "" {
		t.Fatalf("the trace's diffs (-want +got):\n%s", diff)
	}
}

// tracedDiffs are the MODIFIED events of a JSON trace: the pod, the
// resourceVersion diffed against and the changes.
func tracedDiffs(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, st := range readTrace[diffStep](t, path) {
		if e := st.Event; e != nil && e.Type == "MODIFIED" {
			out = append(out, e.Namespace+"/"+e.Name+" from "+e.DiffFrom+" "+string(e.Diff))
		}
	}
	return out
}

// diffStep is what tracedDiffs reads of a trace line: its event's changes
// as written.
type diffStep struct {
	Event *struct {
		Type, Namespace, Name, DiffFrom string
		Diff                            json.RawMessage
	} `json:"event"`
}
