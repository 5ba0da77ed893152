package session

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// Columns are laid out as kubectl lays out its own: at least 6 wide, 3
// spaces after the widest cell, widths kept from one call to the next
// (never narrower), a line's last cell left out of its column's width, and
// empty cells at a line's end widening their columns without being written.
func TestColumnsLayout(t *testing.T) {
	var c columns
	got := string(c.layout([][]string{
		{"OP", "POD", "NOTE"},
		{"ADD", "a/b", ""},
		{"ADD", "(no pods)"},
	}))
	want := "" +
		"OP    POD   NOTE\n" +
		"ADD   a/b\n" +
		"ADD   (no pods)\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("first rows (-want +got):\n%s", d)
	}
	got = string(c.layout([][]string{{"RECONCILE", "ns/longer-name", "x"}, {"ADD", "a/b", "y"}}))
	want = "" +
		"RECONCILE   ns/longer-name   x\n" +
		"ADD         a/b              y\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("wider rows (-want +got):\n%s", d)
	}
	if got, want := string(c.layout([][]string{{"ADD", "a/b", "z"}})), "ADD         a/b              z\n"; got != want {
		t.Fatalf("a narrower row after them: got %q, want %q (widths never shrink)", got, want)
	}
}

func textPod(ns, name, phase, rv string, deleting bool) *api.Pod {
	p := &api.Pod{}
	p.Metadata.Namespace, p.Metadata.Name, p.Metadata.ResourceVersion = ns, name, rv
	p.Metadata.UID = ns + "/" + name
	p.Spec.NodeName = "node-a"
	p.Status.Phase = phase
	if deleting {
		now := time.Unix(0, 0)
		p.Metadata.DeletionTimestamp = &now
	}
	return p
}

// The text printer writes the header with the first update, aligned with
// it, and never again; --no-headers leaves it out; --timestamps starts
// every line, the header's too, with a column of its own.
func TestTextPrinter(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 0, 0, 5e6, time.FixedZone("x", 3600))
	updates := []podconfig.PodUpdate{
		{Op: podconfig.ADD, Source: "api", Pods: []*api.Pod{textPod("shop", "web-1", "Pending", "215", false)}},
		{Op: podconfig.ADD, Source: "file"},
		{Op: podconfig.DELETE, Source: "api", Pods: []*api.Pod{textPod("shop", "web-1", "Running", "222", true)}},
	}
	for _, tc := range []struct {
		name string
		opts textOptions
		want string
	}{
		{"header", textOptions{}, "" +
			"OP          SOURCE   POD          PHASE     NODE     RV    IP       NOTE\n" +
			"ADD         api      shop/web-1   Pending   node-a   215   <none>\n" +
			"ADD         file     (no pods)\n" +
			"DELETE      api      shop/web-1   Running   node-a   222   <none>   deleting\n"},
		{"no headers", textOptions{noHeaders: true}, "" +
			"ADD         api      shop/web-1   Pending   node-a   215   <none>\n" +
			"ADD         file     (no pods)\n" +
			"DELETE      api      shop/web-1   Running   node-a   222   <none>   deleting\n"},
		{"timestamps", textOptions{stamp: func() time.Time { return at }}, "" +
			"TIME                       OP          SOURCE   POD          PHASE     NODE     RV    IP       NOTE\n" +
			"2026-12-04T09:00:00.005Z   ADD         api      shop/web-1   Pending   node-a   215   <none>\n" +
			"2026-12-04T09:00:00.005Z   ADD         file     (no pods)\n" +
			"2026-12-04T09:00:00.005Z   DELETE      api      shop/web-1   Running   node-a   222   <none>   deleting\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := newPrinter(&out, "text", false, tc.opts)
			for _, u := range updates {
				p.update(u)
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, out.String()); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

// Watch events print in the same columns, but for the source: a bookmark
// shows only its resourceVersion (and the end of a watch list's initial
// events), an ERROR its Status where the pod would be.
func TestTextPrinterEvents(t *testing.T) {
	var out bytes.Buffer
	p := newPrinter(&out, "text", true, textOptions{})
	end := &api.Pod{}
	end.Metadata.ResourceVersion = "216"
	end.Metadata.Annotations = map[string]string{"k8s.io/initial-events-end": "true"}
	for _, ev := range []watch.Event[*api.Pod]{
		{Type: watch.Added, Object: textPod("shop", "web-1", "Pending", "215", false)},
		{Type: watch.Bookmark, Object: end},
		{Type: watch.Error, Err: errNotStatus("decode: bad")},
	} {
		ev.Raw = []byte("{}") // printed: the server's own
		p.event(ev)
	}
	want := "" +
		"EVENT      POD          PHASE     NODE     RV    IP       NOTE\n" +
		"ADDED      shop/web-1   Pending   node-a   215   <none>\n" +
		"BOOKMARK                                   216            initial-events-end\n" +
		"ERROR      decode: bad\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

type errNotStatus string

func (e errNotStatus) Error() string { return string(e) }

// holds checks what h holds: its pods and resourceVersion.
func holds(t *testing.T, h *holding, when, pods, rv string) {
	t.Helper()
	if gotPods, gotRV := h.text(); gotPods != pods || gotRV != rv {
		t.Fatalf("%s: holding %q at %q, want %q at %q", when, gotPods, gotRV, pods, rv)
	}
}

// What a run holds follows the pod config's updates: ADD and the changes
// add or keep a pod, REMOVE drops it, a SET (the snapshot modes) is every
// source's pods, each by the source the pod config marked it with.
func TestHolding(t *testing.T) {
	pod := func(src, name string) *api.Pod {
		p := textPod("ns", name, "Running", "1", false)
		p.Metadata.Annotations = map[string]string{podconfig.SourceAnnotation: src}
		return p
	}
	var h holding
	h.apply(podconfig.PodUpdate{Op: podconfig.ADD, Source: "api", Pods: []*api.Pod{pod("api", "a"), pod("api", "b")}})
	h.apply(podconfig.PodUpdate{Op: podconfig.ADD, Source: "file", Pods: []*api.Pod{pod("file", "s")}})
	h.apply(podconfig.PodUpdate{Op: podconfig.RECONCILE, Source: "api", Pods: []*api.Pod{pod("api", "a")}})
	h.at("12")
	holds(t, &h, "after the ADDs", "3 pods (2 api, 1 file)", "12")
	h.apply(podconfig.PodUpdate{Op: podconfig.REMOVE, Source: "api", Pods: []*api.Pod{pod("api", "b")}})
	h.apply(podconfig.PodUpdate{Op: podconfig.REMOVE, Source: "file", Pods: []*api.Pod{pod("file", "s")}})
	holds(t, &h, "after the REMOVEs", "1 pod", "12")
	h.apply(podconfig.PodUpdate{Op: podconfig.SET, Source: "file", Pods: []*api.Pod{pod("api", "c"), pod("file", "s")}})
	holds(t, &h, "after a SET", "2 pods (1 api, 1 file)", "12")
}

// With --events, what a run holds follows the lists (a first page replaces,
// a later one adds), a watch from scratch (which brings every pod again)
// and the events printed, and so does its resourceVersion.
func TestHoldingEvents(t *testing.T) {
	pod := func(name, rv string) *api.Pod { return textPod("ns", name, "Running", rv, false) }
	var h holding
	h.listed([]*api.Pod{pod("a", "3"), pod("b", "4")}, "5", true)
	h.listed([]*api.Pod{pod("c", "5")}, "5", false)
	h.event(watch.Event[*api.Pod]{Type: watch.Deleted, Object: pod("b", "6")})
	holds(t, &h, "after the lists and a DELETED", "2 pods", "6")
	bookmark := &api.Pod{}
	bookmark.Metadata.ResourceVersion = "7"
	h.event(watch.Event[*api.Pod]{Type: watch.Bookmark, Object: bookmark})
	holds(t, &h, "after a bookmark", "2 pods", "7")
	h.listed([]*api.Pod{pod("a", "3")}, "8", true)
	holds(t, &h, "after a relist", "1 pod", "8")
	h.forget()
	h.event(watch.Event[*api.Pod]{Type: watch.Added, Object: pod("d", "9")})
	h.event(watch.Event[*api.Pod]{Type: watch.Modified, Object: pod("d", "10")})
	holds(t, &h, "after a watch from scratch", "1 pod", "10")
}

func TestClosingLine(t *testing.T) {
	for _, tc := range []struct {
		name, pods, rv string
		stop           *trace.Stop
		want           string
	}{
		{"quiet", "2 pods", "230", &trace.Stop{}, "holding 2 pods at resourceVersion 230; 0 relists, 0 backoffs, no change missed"},
		{"never synced", "0 pods", "", &trace.Stop{Backoffs: 1}, "holding 0 pods; 0 relists, 1 backoff, no change missed"},
		{"missed", "1 pod", "9", &trace.Stop{Relists: 1, Backoffs: 2, Missed: 3, MissedHow: map[string]int{trace.MissedDeleted: 1, trace.MissedUnseen: 2}},
			"holding 1 pod at resourceVersion 9; 1 relist, 2 backoffs, 3 changes missed across relists (1 deleted, 2 unseen): --trace tells which"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := closingLine(tc.pods, tc.rv, tc.stop); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
