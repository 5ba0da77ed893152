package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const wait = 30 * time.Second

// TestCluster runs one real etcd and kube-apiserver and checks, step by
// step, what the e2e tests rely on. The steps share the cluster to keep
// the run short, so they run in order.
func TestCluster(t *testing.T) {
	c := StartForTest(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	if err := c.EnsureNamespace(ctx, "ns-a"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	// Again, to prove it accepts what exists.
	if err := c.EnsureNamespace(ctx, "ns-a"); err != nil {
		t.Fatalf("EnsureNamespace again: %v", err)
	}
	if _, err := c.CreatePod(ctx, "ns-a", "pod-a1", "node-a", map[string]string{"app": "a"}); err != nil {
		t.Fatalf("CreatePod pod-a1: %v", err)
	}
	if _, err := c.CreatePod(ctx, "ns-a", "pod-b1", "node-b", nil); err != nil {
		t.Fatalf("CreatePod pod-b1: %v", err)
	}
	names, firstRV, err := c.ListPodsOnNode(ctx, "node-a")
	if err != nil {
		t.Fatalf("ListPodsOnNode: %v", err)
	}
	if diff := cmp.Diff([]string{"ns-a/pod-a1"}, names); diff != "" {
		t.Fatalf("pods on node-a (-want +got):\n%s", diff)
	}

	t.Run("readyz over HTTP/2 with verified TLS", func(t *testing.T) {
		resp, body := get(t, c.Client(""), c.URL+"/readyz")
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != "ok" {
			t.Fatalf("GET /readyz: got %d %q, want 200 \"ok\"", resp.StatusCode, body)
		}
		if resp.Proto != "HTTP/2.0" {
			t.Fatalf("protocol: got %s, want HTTP/2.0", resp.Proto)
		}
	})

	t.Run("tokens", func(t *testing.T) {
		listURL := c.URL + "/api/v1/pods?" + url.Values{"fieldSelector": {"spec.nodeName=node-a"}}.Encode()
		tests := []struct {
			name       string
			token      string
			wantStatus int
			wantReason string // Status reason in the body of a failure
		}{
			{name: "node token lists pods", token: c.NodeToken, wantStatus: http.StatusOK},
			{name: "token without RBAC grant", token: c.NoRBACToken, wantStatus: http.StatusForbidden, wantReason: "Forbidden"},
			{name: "wrong token", token: "not-a-token", wantStatus: http.StatusUnauthorized, wantReason: "Unauthorized"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp, body := get(t, c.Client(tt.token), listURL)
				if resp.StatusCode != tt.wantStatus {
					t.Fatalf("GET pods: got %d, want %d; body %s", resp.StatusCode, tt.wantStatus, body)
				}
				var st struct {
					Kind    string `json:"kind"`
					Reason  string `json:"reason"`
					Message string `json:"message"`
					Items   []objectMeta
				}
				if err := json.Unmarshal([]byte(body), &st); err != nil {
					t.Fatalf("decode answer %q: %v", body, err)
				}
				if tt.wantStatus == http.StatusOK {
					if len(st.Items) != 1 || st.Items[0].Metadata.Name != "pod-a1" {
						t.Fatalf("items: got %+v, want only pod-a1", st.Items)
					}
					return
				}
				if st.Kind != "Status" || st.Reason != tt.wantReason {
					t.Fatalf("answer: got kind %q reason %q, want Status %q; body %s", st.Kind, st.Reason, tt.wantReason, body)
				}
				if tt.wantStatus == http.StatusForbidden && !strings.Contains(st.Message, `"pods"`) {
					t.Fatalf("403 message %q does not name the resource", st.Message)
				}
			})
		}
	})

	t.Run("node token watch sees each change on node-a over HTTP/2", func(t *testing.T) {
		w, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", firstRV))
		if w == nil {
			t.Fatalf("watch: got %d, want 200", resp.StatusCode)
		}
		if resp.Proto != "HTTP/2.0" {
			t.Fatalf("watch protocol: got %s, want HTTP/2.0", resp.Proto)
		}
		zero := int64(0)
		steps := []struct {
			name      string
			do        func() (string, error)
			pod       string
			wantTypes []string // events for pod, in order; the last one carries the answer's RV
			wantDel   bool     // deletionTimestamp set on the last event
		}{
			{name: "create on node-b, then node-a", do: func() (string, error) {
				if _, err := c.CreatePod(ctx, "ns-a", "pod-b2", "node-b", nil); err != nil {
					return "", err
				}
				return c.CreatePod(ctx, "ns-a", "pod-a2", "node-a", nil)
			}, pod: "pod-a2", wantTypes: []string{"ADDED"}},
			{name: "labels", do: func() (string, error) {
				return c.UpdatePodLabels(ctx, "ns-a", "pod-a2", map[string]string{"step": "2"})
			}, pod: "pod-a2", wantTypes: []string{"MODIFIED"}},
			{name: "image", do: func() (string, error) {
				return c.SetPodImage(ctx, "ns-a", "pod-a2", "registry.invalid/pause:2")
			}, pod: "pod-a2", wantTypes: []string{"MODIFIED"}},
			{name: "phase", do: func() (string, error) {
				return c.SetPodPhase(ctx, "ns-a", "pod-a2", "Running")
			}, pod: "pod-a2", wantTypes: []string{"MODIFIED"}},
			{name: "graceful delete only marks the pod", do: func() (string, error) {
				return c.DeletePod(ctx, "ns-a", "pod-a2", nil)
			}, pod: "pod-a2", wantTypes: []string{"MODIFIED"}, wantDel: true},
			// Shortening the grace period of a pod being deleted first
			// writes the new period, then removes the pod.
			{name: "grace 0 on a pod being deleted", do: func() (string, error) {
				return c.DeletePod(ctx, "ns-a", "pod-a2", &zero)
			}, pod: "pod-a2", wantTypes: []string{"MODIFIED", "DELETED"}, wantDel: true},
			{name: "create another", do: func() (string, error) {
				return c.CreatePod(ctx, "ns-a", "pod-a9", "node-a", nil)
			}, pod: "pod-a9", wantTypes: []string{"ADDED"}},
			// Even at once, deletion first writes the deletionTimestamp.
			{name: "grace 0 on a live pod", do: func() (string, error) {
				return c.DeletePod(ctx, "ns-a", "pod-a9", &zero)
			}, pod: "pod-a9", wantTypes: []string{"MODIFIED", "DELETED"}, wantDel: true},
		}
		for _, s := range steps {
			rv, err := s.do()
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			var got []string
			var last event
			for range s.wantTypes {
				last = w.next(t, wait)
				got = append(got, last.Type+" "+last.Object.Metadata.Name)
				t.Logf("%s: answer RV %s, event %s RV %s", s.name, rv, last.Type, last.Object.Metadata.ResourceVersion)
			}
			var want []string
			for _, typ := range s.wantTypes {
				want = append(want, typ+" "+s.pod)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: events (-want +got):\n%s", s.name, diff)
			}
			if got := last.Object.Metadata.DeletionTimestamp != nil; got != s.wantDel {
				t.Fatalf("%s: deletionTimestamp set: got %v, want %v", s.name, got, s.wantDel)
			}
			if last.Type != "DELETED" && last.Object.Metadata.ResourceVersion != rv {
				t.Fatalf("%s: event RV %s, want the answer's RV %s", s.name, last.Object.Metadata.ResourceVersion, rv)
			}
		}
	})

	t.Run("apiserver stop ends watches cleanly, kill drops them", func(t *testing.T) {
		tests := []struct {
			name    string
			stop    func() error
			wantEOF bool // a clean end of stream, no error
		}{
			{name: "stop", stop: c.StopAPIServer, wantEOF: true},
			{name: "kill", stop: c.KillAPIServer, wantEOF: false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, rv, err := c.ListPodsOnNode(ctx, "node-a")
				if err != nil {
					t.Fatalf("ListPodsOnNode: %v", err)
				}
				w, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", rv))
				if w == nil {
					t.Fatalf("watch: got %d, want 200", resp.StatusCode)
				}
				stopped := make(chan error, 1)
				go func() { stopped <- tt.stop() }()
				seen, end := w.waitEnd(t, APIServerStopGrace+wait)
				if err := <-stopped; err != nil {
					t.Fatalf("%s apiserver: %v", tt.name, err)
				}
				// Recorded for the e2e tests: how a watch ends when the server goes.
				t.Logf("watch on apiserver %s: events %+v, end %T %v", tt.name, seen, end, end)
				if len(seen) != 0 {
					t.Fatalf("events before the end: got %+v, want none", seen)
				}
				if got := errors.Is(end, io.EOF); got != tt.wantEOF {
					t.Fatalf("clean EOF: got %v (%v), want %v", got, end, tt.wantEOF)
				}
				if err := c.StartAPIServer(ctx); err != nil {
					t.Fatalf("StartAPIServer: %v", err)
				}
				// The new watch cache starts at etcd's revision when it
				// lists: the old RV is out of its window (ERROR 410) if
				// anything was written since, the apiserver's own lease
				// upkeep included; else the watch goes on from it.
				w2, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", rv))
				if w2 == nil {
					t.Fatalf("watch from RV %s after restart: got HTTP %d, want 200", rv, resp.StatusCode)
				}
				pod := "pod-restart-" + tt.name
				if _, err := c.CreatePod(ctx, "ns-a", pod, "node-a", nil); err != nil {
					t.Fatalf("CreatePod after restart: %v", err)
				}
				ev := w2.next(t, wait)
				t.Logf("watch from pre-restart RV %s: %s %s code %d %s", rv, ev.Type, ev.Object.Metadata.Name, ev.Object.Code, ev.Object.Reason)
				gone := ev.Type == "ERROR" && ev.Object.Code == http.StatusGone
				added := ev.Type == "ADDED" && ev.Object.Metadata.Name == pod
				if !gone && !added {
					t.Fatalf("watch from pre-restart RV: got %s %s code %d, want ERROR 410 or ADDED %s", ev.Type, ev.Object.Metadata.Name, ev.Object.Code, pod)
				}
				zero := int64(0)
				if _, err := c.DeletePod(ctx, "ns-a", pod, &zero); err != nil {
					t.Fatalf("DeletePod: %v", err)
				}
			})
		}
		if _, err := c.CreatePod(ctx, "ns-a", "pod-a3", "node-a", nil); err != nil {
			t.Fatalf("CreatePod after restart: %v", err)
		}
	})

	t.Run("compacted RV gets 410 after apiserver restart", func(t *testing.T) {
		rev, err := c.CompactEtcd(ctx)
		if err != nil {
			t.Fatalf("CompactEtcd: %v", err)
		}
		t.Logf("compacted etcd at revision %d; watching from RV %s", rev, firstRV)
		if err := c.RestartAPIServer(ctx); err != nil {
			t.Fatalf("RestartAPIServer: %v", err)
		}
		w, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", firstRV))
		if w == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Logf("410 form: HTTP answer %d %s", resp.StatusCode, body)
			if resp.StatusCode != http.StatusGone {
				t.Fatalf("watch from compacted RV: got HTTP %d, want 410", resp.StatusCode)
			}
			return
		}
		ev := w.next(t, wait)
		t.Logf("410 form: HTTP 200, then event %s code %d reason %s", ev.Type, ev.Object.Code, ev.Object.Reason)
		if ev.Type != "ERROR" || ev.Object.Code != http.StatusGone {
			t.Fatalf("watch from compacted RV: got event %s code %d, want ERROR 410", ev.Type, ev.Object.Code)
		}
		seen, end := w.waitEnd(t, wait)
		t.Logf("after the ERROR event: events %+v, end %v", seen, end)
		if !isEOF(end) {
			t.Fatalf("stream after ERROR: got end %v, want EOF", end)
		}
	})

	t.Run("etcd restart", func(t *testing.T) {
		_, rv, err := c.ListPodsOnNode(ctx, "node-a")
		if err != nil {
			t.Fatalf("ListPodsOnNode: %v", err)
		}
		w, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", rv))
		if w == nil {
			t.Fatalf("watch: got %d, want 200", resp.StatusCode)
		}
		if err := c.StopEtcd(); err != nil {
			t.Fatalf("StopEtcd: %v", err)
		}
		if err := c.StartEtcd(ctx); err != nil {
			t.Fatalf("StartEtcd: %v", err)
		}
		if err := retry(ctx, func() error {
			_, err := c.CreatePod(ctx, "ns-a", "pod-a4", "node-a", nil)
			if IsStatus(err, http.StatusConflict) {
				return nil // an earlier try got through after all
			}
			return err
		}); err != nil {
			t.Fatalf("CreatePod after etcd restart: %v", err)
		}
		names, _, err := c.ListPodsOnNode(ctx, "node-a")
		if err != nil {
			t.Fatalf("ListPodsOnNode: %v", err)
		}
		if diff := cmp.Diff([]string{"ns-a/pod-a1", "ns-a/pod-a3", "ns-a/pod-a4"}, names); diff != "" {
			t.Fatalf("pods on node-a after etcd restart (-want +got):\n%s", diff)
		}
		// Recorded for the e2e tests: whether a watch opened before the
		// restart stays open and sees later changes.
		select {
		case ev := <-w.events:
			t.Logf("watch across etcd restart: got %s %s", ev.Type, ev.Object.Metadata.Name)
		case <-w.done:
			t.Logf("watch across etcd restart: ended with %v", w.err)
		case <-time.After(wait):
			t.Logf("watch across etcd restart: no event within %s", wait)
		}
	})
}

func watchURL(c *Cluster, node, rv string) string {
	q := url.Values{
		"watch":           {"true"},
		"fieldSelector":   {"spec.nodeName=" + node},
		"resourceVersion": {rv},
	}
	return c.URL + "/api/v1/pods?" + q.Encode()
}

// get GETs url with a bounded context and returns the answer and its body.
func get(t *testing.T, client *http.Client, url string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, string(b)
}

// retry calls f until it succeeds or wait passes: right after an etcd
// restart the apiserver's etcd client reconnects in its own time.
func retry(ctx context.Context, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; last error: %w", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestWatchCacheOff shows the other way to a 410: with the watch cache off,
// watches go to etcd, so compaction alone expires an old RV.
func TestWatchCacheOff(t *testing.T) {
	off := false
	c := StartForTest(t, Options{WatchCache: &off})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, "ns-off"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	oldRV, err := c.CreatePod(ctx, "ns-off", "pod-1", "node-a", nil)
	if err != nil {
		t.Fatalf("CreatePod: %v", err)
	}
	// Two writes after oldRV: a watch from oldRV starts at the revision after it,
	// and etcd still serves a watch that starts exactly at the compacted revision,
	// so with a single write in between the watch would legitimately succeed.
	for _, name := range []string{"pod-2", "pod-3"} {
		if _, err := c.CreatePod(ctx, "ns-off", name, "node-a", nil); err != nil {
			t.Fatalf("CreatePod: %v", err)
		}
	}
	if _, err := c.CompactEtcd(ctx); err != nil {
		t.Fatalf("CompactEtcd: %v", err)
	}
	w, resp := startWatch(t, c.Client(c.NodeToken), watchURL(c, "node-a", oldRV))
	if w == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("410 form with watch cache off: HTTP answer %d %s", resp.StatusCode, body)
		if resp.StatusCode != http.StatusGone {
			t.Fatalf("watch from compacted RV: got HTTP %d, want 410", resp.StatusCode)
		}
		return
	}
	ev := w.next(t, wait)
	t.Logf("410 form with watch cache off: HTTP 200, then %s code %d reason %s", ev.Type, ev.Object.Code, ev.Object.Reason)
	if ev.Type != "ERROR" || ev.Object.Code != http.StatusGone {
		t.Fatalf("watch from compacted RV: got %s code %d, want ERROR 410", ev.Type, ev.Object.Code)
	}
}
