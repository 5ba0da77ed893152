package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// TestProtobuf runs podwatch in protobuf, the kubelet's format, against one
// real apiserver beside the same run in JSON; the 410 comes last, as it
// restarts the apiserver.
func TestProtobuf(t *testing.T) {
	c, ctx := startCluster(t, 5*time.Minute)
	t.Run("objects transcode to the JSON answers", func(t *testing.T) { testProtobufTranscoding(t, ctx, c) })
	t.Run("a reflector pushes as in JSON", func(t *testing.T) {
		testSameWatch(t, ctx, c, "pb-match", wire.ContentTypeJSON, wire.ContentTypeProtobuf)
	})
	t.Run("podwatch watch prints as in JSON", func(t *testing.T) {
		checkProtobufTrace(t, testSameCommand(t, ctx, c, "pb-cmd", "json", "protobuf"))
	})
	t.Run("CBOR without its feature gate is refused", func(t *testing.T) { testCBORGateOff(t, ctx, c) })
	t.Run("a 410 after compaction relists", func(t *testing.T) {
		testGone(t, ctx, c, "pb-gone", wire.ContentTypeProtobuf, wire.ContentTypeProtobuf+";stream=watch")
	})
}

var updateProtobufTestdata = flag.Bool("update-protobuf-testdata", false,
	"write the recorded pod, as the real apiserver answers it in each content type, to rest/protowire/testdata")

// testProtobufTranscoding fetches real pods, the recorded
// testdata pod among them, in both content types and checks that the
// protobuf answer, transcoded, is the JSON answer.
func testProtobufTranscoding(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	const ns = "pb-get"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "web", node, map[string]string{"app": "web"}); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	createRecordedPod(t, ctx, c, ns)
	for _, name := range []string{"web", "recorded"} {
		path := "/api/v1/namespaces/" + ns + "/pods/" + name
		js := get(t, ctx, c, path, wire.ContentTypeJSON, http.StatusOK)
		pb := get(t, ctx, c, path, wire.ContentTypeProtobuf, http.StatusOK)
		u, err := protowire.ParseEnvelope(pb, 0)
		if err != nil {
			t.Fatalf("%s: envelope: %v", name, err)
		}
		var tc protowire.Transcoder
		got, err := tc.Object(u)
		if err != nil {
			t.Fatalf("%s: transcode: %v", name, err)
		}
		if d := cmp.Diff(asJSON(t, js), asJSON(t, got)); d != "" {
			t.Errorf("%s: transcoded protobuf differs from the JSON answer (-json +protobuf):\n%s", name, d)
		}
		// The pod read straight from the wire writes the same JSON.
		p, err := api.DecodePodProtobuf(meta.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}, u.Raw)
		if err != nil {
			t.Fatalf("%s: DecodePodProtobuf: %v", name, err)
		}
		direct, _ := p.MarshalJSON()
		if d := cmp.Diff(asJSON(t, js), asJSON(t, direct)); d != "" {
			t.Errorf("%s: the pod read from protobuf writes other JSON than the JSON answer (-json +protobuf):\n%s", name, d)
		}
		if *updateProtobufTestdata && name == "recorded" {
			for file, b := range map[string][]byte{"pod.pb": pb, "pod.json": js} {
				if err := os.WriteFile(filepath.Join("../../rest/protowire/testdata", file), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	// A list, decoded both ways, gives the same pods, whether the protobuf
	// pods are transcoded to JSON or read straight from the wire.
	lists := map[string][]any{}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeProtobuf, "direct"} {
		accept, codec := ct, meta.Codec[*api.Pod]{JSON: api.DecodePod} // protobuf pods transcoded to JSON first
		if ct == "direct" {
			accept, codec = wire.ContentTypeProtobuf, api.Codec
		}
		f, _ := wire.ParseContentType(accept)
		body := get(t, ctx, c, "/api/v1/namespaces/"+ns+"/pods", accept, http.StatusOK)
		l, err := rest.DecodeList(bytes.NewReader(body), f, codec, rest.ListLimits{})
		if err != nil {
			t.Fatalf("decode %s list: %v", ct, err)
		}
		if l.Kind != "PodList" || l.Metadata.ResourceVersion == "" || len(l.Items) != 2 {
			t.Fatalf("%s list: kind %q rv %q %d items, want a PodList with an rv and 2 items", ct, l.Kind, l.Metadata.ResourceVersion, len(l.Items))
		}
		for _, p := range l.Items {
			b, _ := p.MarshalJSON()
			lists[ct] = append(lists[ct], asJSON(t, b))
		}
	}
	for _, ct := range []string{wire.ContentTypeProtobuf, "direct"} {
		if d := cmp.Diff(lists[wire.ContentTypeJSON], lists[ct]); d != "" {
			t.Errorf("list items differ (-json +%s):\n%s", ct, d)
		}
	}

	// An error answer to a protobuf client is a protobuf Status; the client
	// reads it as it reads the JSON one.
	errs := map[string]*rest.StatusError{}
	for _, ct := range []string{wire.ContentTypeJSON, wire.ContentTypeProtobuf} {
		client, err := rest.NewClient(rest.Config{Host: c.URL, BearerToken: c.AdminToken, TLS: rest.TLSConfig{CAData: c.CAData}, ContentType: ct})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Get().Namespace(ns).Resource("pods").Name("missing").Do(ctx)
		se, ok := rest.AsStatusError(err)
		if !ok || !rest.IsNotFound(err) || se.Body != "" {
			t.Fatalf("%s: got %v, want a 404 Status", ct, err)
		}
		se.Where = ""
		errs[ct] = se
	}
	if d := cmp.Diff(errs[wire.ContentTypeJSON], errs[wire.ContentTypeProtobuf]); d != "" {
		t.Errorf("404 Status differs (-json +protobuf):\n%s", d)
	}
}

// testSameWatch runs reflectors of node's pods, one per content type
// (JSON first), through the same changes (a watch list, then creates,
// updates, a deletion, with bookmarks on) and checks they push the same
// snapshots, pod for pod equal as JSON.
func testSameWatch(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string, cts ...string) {
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "before", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	logs := map[string]*jsonPushLog{}
	steps := map[string]*stepLog{}
	for _, ct := range cts {
		client, err := rest.NewClient(rest.Config{Host: c.URL, BearerToken: c.NodeToken, TLS: rest.TLSConfig{CAData: c.CAData}, ContentType: ct})
		if err != nil {
			t.Fatal(err)
		}
		l, s := &jsonPushLog{}, &stepLog{}
		store := cache.NewUndeltaStore(l.push, cache.MetaNamespaceKey[*api.Pod])
		// Watches of 5 to 10 s: the server sends a bookmark before it ends one.
		r := cache.NewReflector(nodeListWatch(client), store, cache.ReflectorOptions{WatchList: true, MinWatchTimeout: 5 * time.Second, Observe: s.observe})
		goUntilCleanup(t, ctx, "reflector "+ct, func(ctx context.Context) { r.Run(ctx) })
		logs[ct], steps[ct] = l, s
	}
	// Both synced before the changes, so both see each change as an event.
	for ct, l := range logs {
		if !poll(ctx, func() bool { return len(l.all()) > 0 }) {
			t.Fatalf("%s reflector never synced", ct)
		}
	}
	rv, err := c.CreatePod(ctx, ns, "after", node, map[string]string{"v": "1"})
	if err == nil {
		rv, err = c.UpdatePodLabels(ctx, ns, "after", map[string]string{"v": "2"})
	}
	if err == nil {
		rv, err = c.SetPodPhase(ctx, ns, "after", "Running")
	}
	if err == nil {
		zero := int64(0)
		rv, err = c.DeletePod(ctx, ns, "before", &zero)
	}
	if err != nil {
		t.Fatalf("change pods: %v", err)
	}
	for ct, l := range logs {
		if !poll(ctx, func() bool { return l.reached(rv) }) {
			t.Fatalf("%s reflector never pushed rv %s; pushed %v", ct, rv, l.rvs())
		}
	}
	j := logs[cts[0]].all()
	if len(j) < 5 {
		t.Errorf("%d pushes, want the initial sync and one per change: %v", len(j), logs[cts[0]].rvs())
	}
	for _, ct := range cts[1:] {
		p := logs[ct].all()
		// The initial syncs may be at different resourceVersions (the
		// server's own writes move it on between them), but hold the same
		// pods; the changes then come as the same events.
		if d := cmp.Diff(j[0].Pods, p[0].Pods); d != "" {
			t.Errorf("initial pods differ (-%s +%s):\n%s", cts[0], ct, d)
		}
		if d := cmp.Diff(j[1:], p[1:]); d != "" {
			t.Errorf("pushes differ (-%s +%s):\n%s", cts[0], ct, d)
		}
		// Each reflector synced with a watch list (its closing bookmark
		// read), never fell back to a list, and reads the bookmark the
		// server sends as a watch ends, then resumes.
		s := steps[ct]
		if !poll(ctx, func() bool {
			return s.count(cache.StepWatchEnded) > 0 && slices.ContainsFunc(s.all(), func(st cache.Step) bool {
				return st.Kind == cache.StepEvent && st.Event == watch.Bookmark
			})
		}) {
			t.Fatalf("%s reflector: no bookmark and clean watch end within %s; steps:%s", ct, wait, s.summary())
		}
		if s.count(cache.StepWatchList) == 0 || s.count(cache.StepList) > 0 || s.count(cache.StepFallbackList) > 0 || s.count(cache.StepBackoff) > 0 {
			t.Errorf("%s reflector: want a watch list and no list, fallback or backoff; steps:%s", ct, s.summary())
		}
	}
}

type jsonSnapshot struct {
	RV   string
	Pods []any
}

// jsonPushLog records each push as its pods' JSON.
type jsonPushLog struct {
	mu    sync.Mutex
	snaps []jsonSnapshot
}

func (l *jsonPushLog) push(items []*api.Pod, rv string) {
	s := jsonSnapshot{RV: rv}
	for _, p := range items {
		b, _ := p.MarshalJSON()
		var v any
		_ = json.Unmarshal(b, &v)
		s.Pods = append(s.Pods, v)
	}
	l.mu.Lock()
	l.snaps = append(l.snaps, s)
	l.mu.Unlock()
}

func (l *jsonPushLog) all() []jsonSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.snaps)
}

func (l *jsonPushLog) rvs() []string {
	var rvs []string
	for _, s := range l.all() {
		rvs = append(rvs, s.RV)
	}
	return rvs
}

func (l *jsonPushLog) reached(rv string) bool {
	for _, s := range l.all() {
		if atLeast(s.RV, rv) {
			return true
		}
	}
	return false
}

// createRecordedPod creates testdata/pod.json's pod as ns/recorded on node,
// its status set as recorded.
func createRecordedPod(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string) {
	t.Helper()
	b, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var pod map[string]any
	if err := json.Unmarshal(b, &pod); err != nil {
		t.Fatal(err)
	}
	md := pod["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generateName", "ownerReferences", "generation"} {
		delete(md, k)
	}
	md["name"], md["namespace"] = "recorded", ns
	pod["spec"].(map[string]any)["nodeName"] = node
	status := pod["status"]
	delete(pod, "status")
	var created map[string]any
	if err := c.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", pod, &created); err != nil {
		t.Fatalf("create the recorded pod: %v", err)
	}
	created["status"] = status
	if err := c.Do(ctx, http.MethodPut, "/api/v1/namespaces/"+ns+"/pods/recorded/status", created, nil); err != nil {
		t.Fatalf("set the recorded pod's status: %v", err)
	}
}

func get(t *testing.T, ctx context.Context, c *cluster.Cluster, path, accept string, want int) []byte {
	t.Helper()
	f := fetch(t, ctx, c, path, accept)
	if f.code != want {
		t.Fatalf("GET %s as %s: %d, want %d", path, accept, f.code, want)
	}
	return f.body
}

func asJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// testGone compacts etcd and restarts the apiserver under a watch in ct:
// the 410 comes as an ERROR event in ct holding a Status, which the
// reflector reads as a 410 and answers with a relist. Every 2xx answer is
// ct, or watchCT for watches.
func testGone(t *testing.T, ctx context.Context, c *cluster.Cluster, ns, ct, watchCT string) {
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	rv, err := c.CreatePod(ctx, ns, "before", node, nil)
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	answers := &contentTypeLog{}
	client, err := rest.NewClient(rest.Config{Host: c.URL, BearerToken: c.NodeToken, TLS: rest.TLSConfig{CAData: c.CAData},
		ContentType: ct, WrapTransport: answers.wrap})
	if err != nil {
		t.Fatal(err)
	}
	r, pushes, steps := runReflector(t, ctx, nodeListWatch(client), cache.ReflectorOptions{Backoff: quick})
	waitConverged(t, ctx, c, pushes, rv)
	if !poll(ctx, func() bool { return answers.watching() }) {
		t.Fatalf("no watch open within %s", wait)
	}
	before := r.LastSyncResourceVersion()
	if _, err := c.CreatePod(ctx, ns, "elsewhere", otherNode, nil); err != nil {
		t.Fatalf("create pod on %s: %v", otherNode, err)
	}
	if _, err := c.CompactEtcd(ctx); err != nil {
		t.Fatalf("CompactEtcd: %v", err)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatalf("RestartAPIServer: %v", err)
	}
	var relist cache.Step
	if !poll(ctx, func() bool {
		i := slices.IndexFunc(steps.all(), func(s cache.Step) bool { return s.Kind == cache.StepRelist })
		if i >= 0 {
			relist = steps.all()[i]
		}
		return i >= 0
	}) {
		t.Fatalf("no relist within %s; steps:%s", wait, steps.summary())
	}
	if !rest.IsGone(relist.Err) {
		t.Fatalf("relist because of %v, want a 410", relist.Err)
	}
	t.Logf("reflector at %s; the 410: %v; watches answered: %v", before, relist.Err, answers.all())
	rv, err = c.CreatePod(ctx, ns, "after", node, nil)
	if err != nil {
		t.Fatalf("create pod after the restart: %v", err)
	}
	waitConverged(t, ctx, c, pushes, rv)
	checkPushes(t, pushes.all())
	for _, a := range answers.all() {
		if a != "200 "+watchCT && a != "200 "+ct {
			t.Errorf("an answer was %q, want %s", a, ct)
		}
	}
}

// contentTypeLog records the status and Content-Type of each 2xx answer.
type contentTypeLog struct {
	mu      sync.Mutex
	answers []string
	watches int
}

func (l *contentTypeLog) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || resp.StatusCode/100 != 2 {
			return resp, err
		}
		l.mu.Lock()
		l.answers = append(l.answers, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type")))
		if req.URL.Query().Get("watch") == "true" {
			l.watches++
		}
		l.mu.Unlock()
		return resp, nil
	})
}

func (l *contentTypeLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.answers)
}

func (l *contentTypeLog) watching() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.watches > 0
}

// testSameCommand runs podwatch watch -o json --mode snapshot once per
// --content-type (the first compared with each other) through the same
// changes, and checks they print the same lines (equal as JSON, the
// config.seen annotation aside); the last one, which writes a JSON trace,
// then exits 0 on Ctrl-C. It returns that trace's file.
func testSameCommand(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string, cts ...string) (traceFile string) {
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	if _, err := c.CreatePod(ctx, ns, "first", node, nil); err != nil {
		t.Fatalf("create pod: %v", err)
	}
	dir := t.TempDir()
	bin := buildCommand(t, ctx, dir)
	kubeconfig := writeKubeconfig(t, c, dir, "kubeconfig", c.NodeToken)
	procs := map[string]*process{}
	traceFile = filepath.Join(dir, "trace.jsonl")
	last := cts[len(cts)-1]
	for _, ct := range cts {
		args := []string{"watch", "--kubeconfig", kubeconfig, "--node", node, "-o", "json", "--mode", "snapshot", "--content-type", ct}
		if ct == last {
			args = append(args, "--trace-file", traceFile, "--trace-format", "json")
		}
		procs[ct] = startCommand(t, ctx, bin, args...)
	}
	printed := map[string][]any{}
	for ct, p := range procs {
		printed[ct] = append(printed[ct], rawLine(t, p))
	}
	_, err := c.CreatePod(ctx, ns, "second", node, map[string]string{"step": "1"})
	if err == nil {
		_, err = c.UpdatePodLabels(ctx, ns, "second", map[string]string{"step": "2"})
	}
	if err == nil {
		_, err = c.DeletePod(ctx, ns, "second", &zero)
	}
	if err != nil {
		t.Fatalf("change pods: %v", err)
	}
	// Each change is one push: ADDED, MODIFIED, MODIFIED (deleting), DELETED.
	for ct, p := range procs {
		for range 4 {
			printed[ct] = append(printed[ct], rawLine(t, p))
		}
	}
	for _, ct := range cts[1:] {
		if d := cmp.Diff(printed[cts[0]], printed[ct]); d != "" {
			t.Errorf("printed updates differ (-%s +%s):\n%s", cts[0], ct, d)
		}
	}
	p := procs[last]
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("interrupt: %v", err)
	}
	if err := p.waitExit(t); err != nil {
		t.Fatalf("podwatch --content-type %s after Ctrl-C: %v; stderr:\n%s", last, err, p.stderr())
	}
	return traceFile
}

// checkProtobufTrace checks that the JSON trace shows what was asked and
// what came: protobuf.
func checkProtobufTrace(t *testing.T, traceFile string) {
	t.Helper()
	trace, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	var accepts, streams int
	for line := range strings.SplitSeq(strings.TrimSpace(string(trace)), "\n") {
		var rec struct {
			Request *struct {
				Headers []struct{ Name, Value string }
			}
			Response *struct {
				ContentType string `json:"contentType"`
			}
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		if rec.Request != nil {
			for _, h := range rec.Request.Headers {
				if h.Name == "Accept" && h.Value == wire.ContentTypeProtobuf {
					accepts++
				}
			}
		}
		if rec.Response != nil && rec.Response.ContentType == wire.ContentTypeProtobuf+";stream=watch" {
			streams++
		}
	}
	if accepts == 0 || streams == 0 {
		t.Errorf("trace: %d requests accepting protobuf, %d protobuf watch answers; want some of each", accepts, streams)
	}
}

// rawLine returns the next line p prints as JSON, without the pods'
// kubernetes.io/config.seen annotation, the time each process saw them.
func rawLine(t *testing.T, p *process) any {
	t.Helper()
	var line string
	select {
	case line = <-p.lines:
	case <-time.After(wait):
		t.Fatalf("no update printed within %s; stderr:\n%s", wait, p.stderr())
	}
	var u map[string]any
	if err := json.Unmarshal([]byte(line), &u); err != nil {
		t.Fatalf("line %q is not an update: %v", line, err)
	}
	pods, _ := u["pods"].([]any)
	for _, pod := range pods {
		md, _ := pod.(map[string]any)["metadata"].(map[string]any)
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, "kubernetes.io/config.seen")
		}
	}
	return u
}
