package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/fixture"
)

// TestKubectlColumnsAsOnRealApiserver: kubectl 1.37's default output of
// `get pods` through `podwatch serve` of the lifecycle fixture shows the
// READY, STATUS and RESTARTS kubectl shows against a real apiserver that
// holds the same pods. The real apiserver is given every version of every
// pod the recording holds, each as a pod of its own (web-3 at 221 as
// web-3-221: the same spec, the same status, deleted gracefully when the
// version was being deleted), and kubectl's rows there are the judge:
//
//   - `get pods`: the rows are those of the recording's first list, each
//     as the apiserver shows that version;
//   - `get pods --watch`: every row is one the apiserver shows for a
//     version of that pod, and every version a watch event carried is
//     shown, in order.
//
// AGE is not compared: the real pods were created now, the recorded ones
// days ago.
func TestKubectlColumnsAsOnRealApiserver(t *testing.T) {
	t.Parallel() // it waits mostly on the replay and the apiserver's start, as the suite's others wait on replays
	dir := filepath.Join(repoRoot, "testdata", "fixtures", "lifecycle")
	pods, firstList := recordedPods(t, dir)
	kubectl := kubectlPath(t, cluster.Kubectl)
	real := realColumns(t, kubectl, pods)

	args := func(server string, more ...string) []string {
		return append([]string{"get", "pods", "-A", "--field-selector", "spec.nodeName=" + kubeletNode, "--server", server}, more...)
	}
	t.Run("get pods", func(t *testing.T) {
		srv := startServe(t, dir, "--speed", "1")
		run := runKubectlLines(t, kubectl, args(srv.URL), convergeBound, func([]string) bool { return false })
		if run.err != nil {
			t.Fatalf("kubectl: %v\n%s", run.err, run.stderr)
		}
		rows := kubectlRows(t, run.printed)
		var names []string
		for _, r := range rows {
			names = append(names, r.key)
		}
		var want []string
		for _, v := range firstList {
			want = append(want, v.key)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("kubectl printed pods %v, want the first recorded list's %v:\n%s", names, want, strings.Join(run.printed, "\n"))
		}
		for i, r := range rows {
			if w := real[firstList[i].version()]; r.columns() != w {
				t.Errorf("%s: kubectl through podwatch prints %s, against the apiserver %s", r.key, r.columns(), w)
			}
		}
	})
	t.Run("get pods --watch", func(t *testing.T) {
		// Every version a watch event carried is one kubectl prints.
		want := map[string][]string{} // pod key -> the columns of each version it must print
		shows := map[string]bool{}    // "key columns" the apiserver shows for some version of key
		for _, p := range pods {
			shows[p.key+" "+real[p.version()]] = true
			if p.event {
				want[p.key] = append(want[p.key], real[p.version()])
			}
		}
		srv := startServe(t, dir, "--speed", "2")
		run := runKubectlLines(t, kubectl, args(srv.URL, "--watch"), convergeBound, func(lines []string) bool {
			return len(missingRows(t, lines, want)) == 0
		})
		if missing := missingRows(t, run.printed, want); len(missing) > 0 {
			t.Errorf("kubectl through podwatch never printed %v; it printed\n%s\nkubectl said:\n%s", missing, strings.Join(run.printed, "\n"), run.stderr)
		}
		for _, r := range kubectlRows(t, run.printed) {
			if !shows[r.key+" "+r.columns()] {
				t.Errorf("kubectl through podwatch prints %s as %s, which the apiserver shows for none of its versions", r.key, r.columns())
			}
		}
	})
}

// recordedPod is one version of a pod the recording holds.
type recordedPod struct {
	key, rv string // "ns/name" and its resourceVersion
	obj     []byte // the pod's JSON
	event   bool   // a watch event carried it (not only a list)
}

func (p recordedPod) version() string { return p.key + "@" + p.rv }

// recordedPods is every pod version of the recording at dir, in recorded
// order, once each, and the versions of its first list.
func recordedPods(t *testing.T, dir string) (all, firstList []recordedPod) {
	t.Helper()
	rec, err := fixture.Load(dir)
	if err == nil {
		rec, err = rec.JSON()
	}
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	index := map[string]int{} // version -> its place in all
	add := func(raw json.RawMessage, event bool) (recordedPod, bool) {
		var o struct {
			Metadata wireMeta `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &o); err != nil || o.Metadata.Name == "" {
			return recordedPod{}, false // a bookmark, or a Status
		}
		p := recordedPod{key: o.Metadata.Namespace + "/" + o.Metadata.Name, rv: o.Metadata.ResourceVersion, obj: raw, event: event}
		if i, ok := index[p.version()]; ok {
			all[i].event = all[i].event || event
			return all[i], true
		}
		index[p.version()] = len(all)
		all = append(all, p)
		return p, true
	}
	listed := false
	for _, ex := range rec.Exchanges {
		if ex.Response.Status != http.StatusOK {
			continue
		}
		var body bytes.Buffer
		for _, c := range ex.Response.Chunks {
			body.Write(c.Data)
		}
		dec := json.NewDecoder(&body)
		for {
			var doc struct {
				Kind   string            `json:"kind"`
				Items  []json.RawMessage `json:"items"`
				Object json.RawMessage   `json:"object"`
			}
			if err := dec.Decode(&doc); err != nil {
				break // the end, or a recorded cut
			}
			for _, it := range doc.Items {
				if p, ok := add(it, false); ok && !listed {
					firstList = append(firstList, p)
				}
			}
			listed = listed || doc.Kind == "PodList"
			if doc.Object != nil {
				add(doc.Object, true)
			}
		}
	}
	if len(firstList) == 0 {
		t.Fatalf("the recording at %s holds no list of pods", dir)
	}
	return all, firstList
}

// realColumns puts every version of pods on a real apiserver, each a pod of
// its own, and returns what kubectl's default output there shows of each:
// READY, STATUS and RESTARTS, by version.
func realColumns(t *testing.T, kubectl string, pods []recordedPod) map[string]string {
	t.Helper()
	c := cluster.StartForTest(t, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	byName := map[string]string{} // the real pod's key -> the version it holds
	for _, p := range pods {
		ns, name, _ := strings.Cut(p.key, "/")
		if err := c.EnsureNamespace(ctx, ns); err != nil {
			t.Fatalf("namespace %s: %v", ns, err)
		}
		realName := name + "-" + p.rv
		byName[ns+"/"+realName] = p.version()
		createVersion(t, ctx, c, ns, realName, p.obj)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, c.CAData, 0o600); err != nil {
		t.Fatalf("write CA: %v", err)
	}
	run := runKubectlLines(t, kubectl, []string{"get", "pods", "-A", "--field-selector", "spec.nodeName=" + kubeletNode,
		"--server", c.URL, "--token", c.AdminToken, "--certificate-authority", ca}, convergeBound, func([]string) bool { return false })
	if run.err != nil {
		t.Fatalf("kubectl against the apiserver: %v\n%s", run.err, run.stderr)
	}
	out := map[string]string{}
	for _, r := range kubectlRows(t, run.printed) {
		if v, ok := byName[r.key]; ok {
			out[v] = r.columns()
		}
	}
	for _, p := range pods {
		if _, ok := out[p.version()]; !ok {
			t.Fatalf("kubectl against the apiserver printed no row for %s:\n%s", p.version(), strings.Join(run.printed, "\n"))
		}
	}
	return out
}

// createVersion makes pod ns/name on c as obj was: its spec (but for the
// service account volume, which admission adds again), its status through
// the status subresource, and a graceful delete when obj was being deleted,
// which without a kubelet leaves the pod terminating.
func createVersion(t *testing.T, ctx context.Context, c *cluster.Cluster, ns, name string, obj []byte) {
	t.Helper()
	var p struct {
		Metadata struct {
			Labels            map[string]string `json:"labels"`
			DeletionTimestamp *string           `json:"deletionTimestamp"`
		} `json:"metadata"`
		Spec   map[string]any  `json:"spec"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(obj, &p); err != nil {
		t.Fatalf("recorded pod %s: %v", name, err)
	}
	delete(p.Spec, "volumes")
	for _, list := range []string{"containers", "initContainers"} {
		cs, _ := p.Spec[list].([]any)
		for _, ctr := range cs {
			if m, ok := ctr.(map[string]any); ok {
				delete(m, "volumeMounts")
			}
		}
	}
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "labels": p.Metadata.Labels}, "spec": p.Spec}
	if err := c.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", pod, nil); err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
	if len(p.Status) > 0 {
		patch := append(append([]byte(`{"status":`), p.Status...), '}')
		if _, err := c.PatchPod(ctx, ns, name, true, cluster.MergePatch, json.RawMessage(patch)); err != nil {
			t.Fatalf("status of %s/%s: %v", ns, name, err)
		}
	}
	if p.Metadata.DeletionTimestamp != nil {
		if _, err := c.DeletePod(ctx, ns, name, nil); err != nil {
			t.Fatalf("delete %s/%s: %v", ns, name, err)
		}
	}
}

// kubectlRow is one row of `kubectl get pods -A`'s default output.
type kubectlRow struct {
	key                     string // namespace/name
	ready, status, restarts string
}

func (r kubectlRow) columns() string {
	return fmt.Sprintf("READY %s STATUS %s RESTARTS %s", r.ready, r.status, r.restarts)
}

// kubectlRows reads kubectl get pods -A's default output, whose columns are
// NAMESPACE NAME READY STATUS RESTARTS AGE: RESTARTS may hold spaces ("3
// (5m ago)"), no other cell does. Header lines are skipped.
func kubectlRows(t *testing.T, lines []string) []kubectlRow {
	t.Helper()
	var rows []kubectlRow
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "NAMESPACE" {
			continue
		}
		if len(f) < 6 {
			t.Fatalf("kubectl printed %q, not a row of NAMESPACE NAME READY STATUS RESTARTS AGE", l)
		}
		rows = append(rows, kubectlRow{key: f[0] + "/" + f[1], ready: f[2], status: f[3], restarts: strings.Join(f[4:len(f)-1], " ")})
	}
	return rows
}

// missingRows is what of want (pod key -> the columns it must print, in
// order) the lines do not show, as "key columns".
func missingRows(t *testing.T, lines []string, want map[string][]string) []string {
	t.Helper()
	printed := map[string][]string{}
	for _, r := range kubectlRows(t, lines) {
		printed[r.key] = append(printed[r.key], r.columns())
	}
	var missing []string
	for key, cols := range want {
		have := printed[key]
		for _, c := range cols {
			i := slices.Index(have, c)
			if i < 0 {
				missing = append(missing, key+" "+c)
				continue
			}
			have = have[i+1:] // each printed row stands for one version, in order
		}
	}
	slices.Sort(missing)
	return missing
}
