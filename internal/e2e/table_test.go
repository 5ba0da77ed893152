package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cluster"
)

// kubectlAccept is the Accept kubectl 1.37's get sends (seen with -v=8).
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// tablePod is a pod to put in one state: created from spec, its status then
// written as a kubelet would write it, and deleted gracefully when deleted
// is set (with no kubelet, a bound pod then keeps a deletionTimestamp).
type tablePod struct {
	name    string
	spec    string // the pod's spec, as JSON
	status  string // the status subresource's patch, "" for none
	deleted bool
}

// tablePods are pods in each state a cluster without a kubelet can be put
// in, one or more for each branch of the printer's STATUS, READY and
// RESTARTS, and the wide columns filled in.
func tablePods(now time.Time) []tablePod {
	ago := func(d time.Duration) string { return now.Add(-d).UTC().Format(time.RFC3339) }
	img := `"image":"` + cluster.PodImage + `"`
	one := `{"nodeName":"node-a","containers":[{"name":"main",` + img + `}]}`
	two := `{"nodeName":"node-a","containers":[{"name":"main",` + img + `},{"name":"side",` + img + `}]}`
	inits := `{"nodeName":"node-a","initContainers":[{"name":"i1",` + img + `},{"name":"i2",` + img + `}],"containers":[{"name":"main",` + img + `}]}`
	running := `{"name":"main","ready":true,"started":true,` + img + `,"imageID":"","restartCount":0,"state":{"running":{"startedAt":"` + ago(time.Minute) + `"}}}`
	return []tablePod{
		{name: "unscheduled", spec: `{"containers":[{"name":"main",` + img + `}]}`},
		{name: "nominated", spec: `{"containers":[{"name":"main",` + img + `}]}`, status: `{"status":{"phase":"Pending","nominatedNodeName":"node-b"}}`},
		{name: "gated", spec: `{"schedulingGates":[{"name":"example.com/hold"}],"containers":[{"name":"main",` + img + `}]}`},
		{name: "bound", spec: one},
		{name: "creating", spec: one, status: `{"status":{"phase":"Pending","containerStatuses":[{"name":"main",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}}]}}`},
		{name: "running", spec: `{"nodeName":"node-a","readinessGates":[{"conditionType":"example.com/lb"}],"containers":[{"name":"main",` + img + `},{"name":"side",` + img + `}]}`,
			status: `{"status":{"phase":"Running","podIP":"10.1.0.7","podIPs":[{"ip":"10.1.0.7"}],` +
				`"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"},{"type":"example.com/lb","status":"True"}],"containerStatuses":[` + running +
				`,{"name":"side","ready":true,"started":true,` + img + `,"imageID":"","restartCount":3,"state":{"running":{"startedAt":"` + ago(time.Minute) + `"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"` + ago(5*24*time.Hour+time.Hour) + `"}}}]}}`},
		{name: "not-ready", spec: two, status: `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"False"}],"containerStatuses":[` + running +
			`,{"name":"side","ready":false,` + img + `,"imageID":"","restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`},
		{name: "crash-loop", spec: one, status: `{"status":{"phase":"Running","containerStatuses":[{"name":"main",` + img + `,"imageID":"","ready":false,"restartCount":7,"state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off"}},"lastState":{"terminated":{"exitCode":2,"reason":"Error","finishedAt":"` + ago(90*time.Second) + `"}}}]}}`},
		{name: "succeeded", spec: one, status: `{"status":{"phase":"Succeeded","containerStatuses":[{"name":"main",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`},
		{name: "failed", spec: two, status: `{"status":{"phase":"Failed","containerStatuses":[{"name":"main",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}},` +
			`{"name":"side",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":137,"signal":9}}}]}}`},
		{name: "init-running", spec: inits, status: `{"status":{"phase":"Pending","conditions":[{"type":"Initialized","status":"False"}],"initContainerStatuses":[` +
			`{"name":"i1",` + img + `,"imageID":"","ready":true,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}},` +
			`{"name":"i2",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"running":{}}}],` +
			`"containerStatuses":[{"name":"main",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}}`},
		{name: "init-crash", spec: inits, status: `{"status":{"phase":"Pending","initContainerStatuses":[` +
			`{"name":"i1",` + img + `,"imageID":"","ready":false,"restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"` + ago(3*time.Hour) + `"}}},` +
			`{"name":"i2",` + img + `,"imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}}`},
		{name: "sidecar", spec: `{"nodeName":"node-a","initContainers":[{"name":"proxy",` + img + `,"restartPolicy":"Always"}],"containers":[{"name":"main",` + img + `}]}`,
			status: `{"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"}],"initContainerStatuses":[` +
				`{"name":"proxy",` + img + `,"imageID":"","ready":true,"started":true,"restartCount":1,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"` + ago(40*time.Minute) + `"}}}],` +
				`"containerStatuses":[` + running + `]}}`},
		{name: "terminating", spec: one, status: `{"status":{"phase":"Running","containerStatuses":[` + running + `]}}`, deleted: true},
		{name: "node-lost", spec: one, status: `{"status":{"phase":"Running","reason":"NodeLost","message":"node went away"}}`, deleted: true},
	}
}

// TestTableAsTheApiserver judges the Tables of podwatch's servers by the
// real apiserver's: pods in every state tablePods makes are read back as
// JSON and as the Tables kubectl asks for, lists and watches, and
// apiwire.Respond (the writer every server answers through), handed the
// apiserver's JSON, must write the same Tables: every row byte for byte
// (cells, conditions, object), told at the apiserver's clock (its Date);
// the same metadata; the same column definitions but for the descriptions,
// which are podwatch's own words.
func TestTableAsTheApiserver(t *testing.T) {
	c, ctx := startCluster(t, 3*time.Minute)
	const ns = "tables"
	if err := c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	for _, p := range tablePods(time.Now()) {
		createTablePod(t, ctx, c, ns, p)
	}
	path := "/api/v1/namespaces/" + ns + "/pods"
	plain, _ := getBody(t, ctx, c, path, "application/json", http.StatusOK)
	// The cluster writes on its own (leases), which moves a list's
	// resourceVersion: each Table is asked of the state the JSON shows.
	var listed struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal(plain, &listed); err != nil || listed.Metadata.ResourceVersion == "" {
		t.Fatalf("list: %v: %.200s", err, plain)
	}
	atRV := "resourceVersion=" + listed.Metadata.ResourceVersion + "&resourceVersionMatch=Exact"
	for _, lc := range []struct{ name, accept, query string }{
		{"kubectl's list", kubectlAccept, "?" + atRV},
		{"includeObject=None", kubectlAccept, "?includeObject=None&" + atRV},
		{"includeObject=Object", kubectlAccept, "?includeObject=Object&" + atRV},
		{"a page", kubectlAccept, "?includeObject=Metadata&limit=4&" + atRV},
		{"v1beta1", "application/json;as=Table;v=v1beta1;g=meta.k8s.io", "?" + atRV},
	} {
		t.Run(lc.name, func(t *testing.T) {
			body := plain
			if strings.Contains(lc.query, "limit") {
				body, _ = getBody(t, ctx, c, path+"?limit=4&"+atRV, "application/json", http.StatusOK)
			}
			theirs, date := getBody(t, ctx, c, path+lc.query, lc.accept, http.StatusOK)
			if !bytes.Contains(theirs, []byte(`"cells":`)) {
				t.Fatalf("the apiserver's Table has no rows: %s", theirs)
			}
			compareAtItsClock(t, theirs, date, func(now time.Time) []byte {
				return podwatchAnswer(t, path+lc.query, lc.accept, body, now)
			})
		})
	}
	for _, wc := range []struct {
		name, query string
		bookmark    bool // the initial events end with a bookmark
	}{
		// From resourceVersion 0 a watch starts with an ADDED event for
		// each pod, in key order in both forms, and ends at its timeout.
		{"watch", "?watch=true&resourceVersion=0&timeoutSeconds=1", false},
		// A watch list's initial events end with a bookmark whose row
		// keeps its metadata although None was asked.
		{"watch list", "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&includeObject=None&timeoutSeconds=1", true},
	} {
		t.Run(wc.name, func(t *testing.T) {
			q := path + wc.query
			var events, theirs []byte
			var date time.Time
			// A watch list's bookmark is at the cluster's resourceVersion,
			// which its own writes (leases) may move between the two
			// watches: they are asked again until both saw one state.
			for try := 0; try < 3; try++ {
				events, _ = getBody(t, ctx, c, q, "application/json", http.StatusOK)
				theirs, date = getBody(t, ctx, c, q, kubectlAccept, http.StatusOK)
				if lastRV(t, initialEvents(events)) == lastRV(t, initialEvents(theirs)) {
					break
				}
			}
			theirLines := initialEvents(theirs)
			bookmark := bytes.HasPrefix(theirLines[len(theirLines)-1], []byte(`{"type":"BOOKMARK"`))
			if len(theirLines) < len(tablePods(time.Now())) || bookmark != wc.bookmark {
				t.Fatalf("the apiserver's Table watch has %d events, a bookmark last: %t, want %t:\n%s", len(theirLines), bookmark, wc.bookmark, theirs)
			}
			ours := func(now time.Time) [][]byte { return initialEvents(podwatchAnswer(t, q, kubectlAccept, events, now)) }
			if n := len(ours(date)); n != len(theirLines) {
				t.Fatalf("podwatch wrote %d events, the apiserver %d", n, len(theirLines))
			}
			for i, line := range theirLines {
				compareAtItsClock(t, eventObject(t, line), date, func(now time.Time) []byte {
					return eventObject(t, ours(now)[i])
				})
			}
		})
	}
	t.Run("an includeObject it refuses", func(t *testing.T) {
		q := path + "?includeObject=none"
		theirs, _ := getBody(t, ctx, c, q, kubectlAccept, http.StatusBadRequest)
		if ours := podwatchAnswer(t, q, kubectlAccept, plain, time.Now()); string(ours) != string(theirs) {
			t.Errorf("podwatch answers\n%s\nthe apiserver answers\n%s", ours, theirs)
		}
	})
}

// createTablePod puts p in its state on c.
func createTablePod(t *testing.T, ctx context.Context, c *cluster.Cluster, ns string, p tablePod) {
	t.Helper()
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + p.name + `"},"spec":` + p.spec + `}`
	if err := c.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", json.RawMessage(pod), nil); err != nil {
		t.Fatalf("create %s: %v", p.name, err)
	}
	if p.status != "" {
		if _, err := c.PatchPod(ctx, ns, p.name, true, cluster.MergePatch, json.RawMessage(p.status)); err != nil {
			t.Fatalf("status of %s: %v", p.name, err)
		}
	}
	if p.deleted {
		if _, err := c.DeletePod(ctx, ns, p.name, nil); err != nil {
			t.Fatalf("delete %s: %v", p.name, err)
		}
	}
}

// getBody GETs path as the admin, accepting accept, and returns the body,
// which must come with status code, and the answer's Date: the apiserver's
// clock, to the second, when it had made the body.
func getBody(t *testing.T, ctx context.Context, c *cluster.Cluster, path, accept string, code int) ([]byte, time.Time) {
	t.Helper()
	resp := adminGet(t, ctx, c, path, accept)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != code {
		t.Fatalf("GET %s: %d %s, want %d", path, resp.StatusCode, b, code)
	}
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		t.Fatalf("GET %s: Date: %v", path, err)
	}
	return b, date
}

// podwatchAnswer is what podwatch's servers write to a client asking target
// with accept, when the server writes body (the apiserver's JSON), with
// Tables told at now.
func podwatchAnswer(t *testing.T, target, accept string, body []byte, now time.Time) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	w, _ := apiwire.Respond(rec, req)
	w.WithClock(func() time.Time { return now })
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
	return rec.Body.Bytes()
}

// initialEvents are the event lines of a watch body up to its first
// bookmark: what the two watches of one test see alike, when a bookmark
// before the timeout may come to one and not the other.
func initialEvents(body []byte) [][]byte {
	lines := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte(`{"type":"BOOKMARK"`)) {
			return lines[:i+1]
		}
	}
	return lines
}

// lastRV is the resourceVersion of the last event's object (a pod's, or a
// Table's, which is its pod's).
func lastRV(t *testing.T, lines [][]byte) string {
	t.Helper()
	var obj struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal(eventObject(t, lines[len(lines)-1]), &obj); err != nil {
		t.Fatalf("last event: %v", err)
	}
	return obj.Metadata.ResourceVersion
}

// eventObject is the object of one watch event line.
func eventObject(t *testing.T, line []byte) []byte {
	t.Helper()
	var ev struct {
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatalf("watch event %s: %v", line, err)
	}
	return ev.Object
}

// compareAtItsClock compares the apiserver's Table with podwatch's, made
// at the second of the apiserver's Date or the one before or after: the
// apiserver told the Table's ages at a moment within them (a list just
// before its Date, a watch's events just after).
func compareAtItsClock(t *testing.T, theirs []byte, date time.Time, ours func(time.Time) []byte) {
	t.Helper()
	var diff string
	for _, off := range []time.Duration{0, -time.Second, time.Second} {
		if diff = tableDiff(theirs, ours(date.Add(off))); diff == "" {
			return
		}
	}
	t.Errorf("podwatch's Table differs from the apiserver's at its clock %v (-apiserver +podwatch):\n%s", date, diff)
}

// tableDiff says how two Tables differ, "" when they do not: rows byte for
// byte, metadata byte for byte, column definitions but for descriptions.
func tableDiff(theirs, ours []byte) string {
	type columns []map[string]any
	read := func(b []byte) (kind, version, md string, cols columns, rows []string, err error) {
		var tb struct {
			Kind              string            `json:"kind"`
			APIVersion        string            `json:"apiVersion"`
			Metadata          json.RawMessage   `json:"metadata"`
			ColumnDefinitions columns           `json:"columnDefinitions"`
			Rows              []json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(b, &tb); err != nil {
			return "", "", "", nil, nil, fmt.Errorf("%w: %s", err, b)
		}
		for _, c := range tb.ColumnDefinitions {
			delete(c, "description")
		}
		for _, r := range tb.Rows {
			rows = append(rows, string(r))
		}
		return tb.Kind, tb.APIVersion, string(tb.Metadata), tb.ColumnDefinitions, rows, nil
	}
	type table struct {
		Kind, APIVersion, Metadata string
		Columns                    columns
		Rows                       []string
	}
	var a, b table
	var err error
	if a.Kind, a.APIVersion, a.Metadata, a.Columns, a.Rows, err = read(theirs); err != nil {
		return "apiserver: " + err.Error()
	}
	if b.Kind, b.APIVersion, b.Metadata, b.Columns, b.Rows, err = read(ours); err != nil {
		return "podwatch: " + err.Error()
	}
	return cmp.Diff(a, b)
}
