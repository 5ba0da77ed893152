package benchserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

func newServer(t *testing.T, n, m int) (*Server, *rest.Client) {
	t.Helper()
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := NewPods(tmpl, n, "node-1", PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Pods: pods, M: m}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	c, err := rest.NewClient(rest.Config{Host: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func pods(c *rest.Client) *rest.Request {
	return c.Get().Resource("pods").FieldSelector("spec.nodeName=node-1")
}

// The copies are real pods, each its own, bound to the node, listed page by
// page.
func TestListPages(t *testing.T) {
	_, c := newServer(t, 7, 0)
	seen := map[string]bool{}
	cont := ""
	for page := 0; ; page++ {
		resp, err := pods(c).Limit(3).Continue(cont).Stream(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		list, err := rest.DecodeList(resp.Body, wire.JSON, api.Codec, rest.ListLimits{})
		resp.Body.Close()
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if list.Metadata.ResourceVersion != "7" {
			t.Fatalf("list resourceVersion %q, want 7", list.Metadata.ResourceVersion)
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "node-1" || seen[p.Metadata.Name] || seen[p.Metadata.UID] {
				t.Fatalf("pod %s uid %s node %s: not a fresh copy on node-1", p.Metadata.Name, p.Metadata.UID, p.Spec.NodeName)
			}
			seen[p.Metadata.Name], seen[p.Metadata.UID] = true, true
		}
		if cont = list.Metadata.Continue; cont == "" {
			break
		}
	}
	if len(seen) != 14 {
		t.Fatalf("listed %d pods, want 7", len(seen)/2)
	}
}

// A watch list sends the copies, the initial-events-end bookmark, then the
// events, each a newer resourceVersion.
func TestWatchList(t *testing.T) {
	s, c := newServer(t, 5, 12)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := pods(c).Watch(true).SendInitialEvents(true).ResourceVersionMatch("NotOlderThan").
		AllowWatchBookmarks(true).TimeoutSeconds(1).Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d := watch.NewDecoder(resp.Body, api.Codec, watch.DecoderOptions{})
	var got []string
	for {
		ev, err := d.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s@%s", ev.Type, ev.Object.Metadata.ResourceVersion))
	}
	if len(got) != 5+1+12 || got[0] != "ADDED@1" || got[5] != "BOOKMARK@5" || got[6] != "MODIFIED@6" || got[17] != "MODIFIED@17" {
		t.Fatalf("events %v: want 5 ADDED, the bookmark at 5, MODIFIED 6..17", got)
	}
	if s.LastRV() != 17 {
		t.Fatalf("LastRV %d, want 17", s.LastRV())
	}
}

func TestBadTemplate(t *testing.T) {
	for _, tmpl := range []string{`{`, `{"metadata":1}`, `{"metadata":{}}`} {
		if _, err := NewPods([]byte(tmpl), 1, "n", PodsOptions{}); err == nil {
			t.Fatalf("template %s accepted", tmpl)
		}
	}
}

// With Vary the copies differ where replicas do and stay equal where replicas
// are equal; without it only name, uid and resourceVersion differ.
func TestVary(t *testing.T) {
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	type member struct {
		name string
		get  func(*api.Pod) string
	}
	members := []member{
		{"metadata.managedFields", func(p *api.Pod) string { return string(p.Metadata.Unmodelled("managedFields")) }},
		// The controller's entry is the template's; the kubelet's names the pod IP.
		{"managedFields[0].fieldsV1", func(p *api.Pod) string { return string(p.Metadata.ManagedFields().Member(0, "fieldsV1")) }},
		{"managedFields[1].fieldsV1", func(p *api.Pod) string { return string(p.Metadata.ManagedFields().Member(1, "fieldsV1")) }},
		{"metadata.creationTimestamp", func(p *api.Pod) string { return p.Metadata.CreationTimestamp.String() }},
		{"status.podIP", func(p *api.Pod) string { return p.Status.PodIP }},
		{"spec.tolerations", func(p *api.Pod) string { b, _ := json.Marshal(p.Spec.Tolerations); return string(b) }},
		{"spec", func(p *api.Pod) string { return string(p.SpecJSON()) }},
		{"status", func(p *api.Pod) string { return string(p.StatusJSON()) }},
	}
	for _, tc := range []struct {
		vary    bool
		differs map[string]bool
	}{
		{false, map[string]bool{}},
		{true, map[string]bool{"metadata.managedFields": true, "managedFields[1].fieldsV1": true, "metadata.creationTimestamp": true,
			"status.podIP": true, "spec": true, "status": true}},
	} {
		pods, err := NewPods(tmpl, 10, "node-1", PodsOptions{Vary: tc.vary})
		if err != nil {
			t.Fatal(err)
		}
		a, err := api.DecodePod(pods.Append(nil, 3, 4))
		if err != nil {
			t.Fatalf("vary %v: copy 3: %v", tc.vary, err)
		}
		b, err := api.DecodePod(pods.Append(nil, 4, 5))
		if err != nil {
			t.Fatalf("vary %v: copy 4: %v", tc.vary, err)
		}
		got := map[string]bool{}
		for _, m := range members {
			if m.get(a) != m.get(b) {
				got[m.name] = true
			}
		}
		if diff := cmp.Diff(tc.differs, got); diff != "" {
			t.Fatalf("vary %v: members that differ between two copies (-want +got):\n%s", tc.vary, diff)
		}
		if tc.vary && b.Metadata.CreationTimestamp.Sub(a.Metadata.CreationTimestamp) != time.Second {
			t.Fatalf("creationTimestamp %v then %v, want one second apart", a.Metadata.CreationTimestamp, b.Metadata.CreationTimestamp)
		}
	}
}
