package podconfig

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/api"
)

type step struct {
	source string
	u      PodUpdate
}

func set(source string, ps ...*api.Pod) step { return step{source, PodUpdate{Op: SET, Pods: ps}} }
func op(source string, o Op, ps ...*api.Pod) step {
	return step{source, PodUpdate{Op: o, Pods: ps}}
}

var modes = []Mode{Incremental, Snapshot, SnapshotAndUpdates}

func TestMerge(t *testing.T) {
	base := set("api", pod("a"), pod("b"))
	tests := []struct {
		name  string
		setup []step
		step  step
		// want holds the updates the step publishes, by mode.
		want map[Mode][]string
	}{
		{
			name: "first SET, empty",
			step: set("api"),
			want: map[Mode][]string{
				Incremental:        {"ADD api: "},
				Snapshot:           {"SET api: "},
				SnapshotAndUpdates: {"SET api: "},
			},
		},
		{
			name: "first SET adds pods sorted by namespace and name",
			step: set("api", pod("b"), pod("a", ns("z"), uid("za")), pod("a")),
			want: map[Mode][]string{
				Incremental:        {"ADD api: default/a@1 default/b@1 z/a@1"},
				Snapshot:           {"SET api: default/a@1 default/b@1 z/a@1"},
				SnapshotAndUpdates: {"SET api: default/a@1 default/b@1 z/a@1"},
			},
		},
		{
			name:  "same SET again",
			setup: []step{base},
			step:  base,
			want:  map[Mode][]string{},
		},
		{
			name:  "SET with a new resourceVersion and nothing else changed",
			setup: []step{base},
			step:  set("api", pod("a", rv("7")), pod("b")),
			want:  map[Mode][]string{},
		},
		{
			name:  "SET adds a pod",
			setup: []step{base},
			step:  set("api", pod("a"), pod("b"), pod("c")),
			want: map[Mode][]string{
				Incremental:        {"ADD api: default/c@1"},
				Snapshot:           {"SET api: default/a@1 default/b@1 default/c@1"},
				SnapshotAndUpdates: {"SET api: default/a@1 default/b@1 default/c@1"},
			},
		},
		{
			name:  "SET drops a pod",
			setup: []step{base},
			step:  set("api", pod("b")),
			want: map[Mode][]string{
				Incremental:        {"REMOVE api: default/a@1"},
				Snapshot:           {"SET api: default/b@1"},
				SnapshotAndUpdates: {"SET api: default/b@1"},
			},
		},
		{
			name:  "spec change",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), image("img:2")), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"UPDATE api: default/a@2"},
			},
		},
		{
			name:  "spec change without a new resourceVersion is still seen",
			setup: []step{base},
			step:  set("api", pod("a", rv(""), image("img:2")), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/a@"},
				Snapshot:           {"SET api: default/a@ default/b@1"},
				SnapshotAndUpdates: {"UPDATE api: default/a@"},
			},
		},
		{
			name:  "label change",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), label("app", "x")), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"UPDATE api: default/a@2"},
			},
		},
		{
			name:  "annotation change",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), ann("team", "x")), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"UPDATE api: default/a@2"},
			},
		},
		{
			name:  "source and seen annotations from the source are not a change",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), ann(SourceAnnotation, "file"), ann(SeenAnnotation, "x")), pod("b")),
			want:  map[Mode][]string{},
		},
		{
			name:  "mirror annotation changed: not a change, as in the kubelet",
			setup: []step{set("api", pod("a", ann(MirrorAnnotation, "h1")), pod("b"))},
			step:  set("api", pod("a", rv("2"), ann(MirrorAnnotation, "h2")), pod("b")),
			want:  map[Mode][]string{},
		},
		{
			name:  "mirror annotation added or removed: not a change",
			setup: []step{set("api", pod("a", ann(MirrorAnnotation, "h1")), pod("b"))},
			step:  set("api", pod("a", rv("2")), pod("b", rv("2"), ann(MirrorAnnotation, "h2"))),
			want:  map[Mode][]string{},
		},
		{
			name:  "deletionTimestamp set: graceful delete",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), deleting(30)), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"DELETE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"DELETE api: default/a@2"},
			},
		},
		{
			name:  "grace period shortened on a deleting pod",
			setup: []step{set("api", pod("a", deleting(30)))},
			step:  set("api", pod("a", rv("2"), deleting(0))),
			want: map[Mode][]string{
				Incremental:        {"DELETE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2"},
				SnapshotAndUpdates: {"DELETE api: default/a@2"},
			},
		},
		{
			name:  "grace period alone is a change",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), grace(5)), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"UPDATE api: default/a@2"},
			},
		},
		{
			name:  "status change alone: reconcile",
			setup: []step{base},
			step:  set("api", pod("a", rv("2"), podIP("10.0.0.9")), pod("b", rv("3"), phase(api.PodSucceeded))),
			want: map[Mode][]string{
				Incremental:        {"RECONCILE api: default/a@2 default/b@3"},
				Snapshot:           {},
				SnapshotAndUpdates: {},
			},
		},
		{
			name:  "every kind at once, in the mode's order",
			setup: []step{set("api", pod("a"), pod("b"), pod("c"), pod("d"))},
			step: set("api", pod("b", rv("2"), image("img:2")), pod("c", rv("3"), deleting(30)),
				pod("d", rv("4"), phase(api.PodFailed)), pod("e")),
			want: map[Mode][]string{
				Incremental: {"REMOVE api: default/a@1", "ADD api: default/e@1", "UPDATE api: default/b@2",
					"DELETE api: default/c@3", "RECONCILE api: default/d@4"},
				Snapshot:           {"SET api: default/b@2 default/c@3 default/d@4 default/e@1"},
				SnapshotAndUpdates: {"SET api: default/b@2 default/c@3 default/d@4 default/e@1", "UPDATE api: default/b@2", "DELETE api: default/c@3"},
			},
		},
		{
			name:  "incremental ADD of a new pod",
			setup: []step{base},
			step:  op("api", ADD, pod("c")),
			want: map[Mode][]string{
				Incremental:        {"ADD api: default/c@1"},
				Snapshot:           {"SET api: default/a@1 default/b@1 default/c@1"},
				SnapshotAndUpdates: {"SET api: default/a@1 default/b@1 default/c@1"},
			},
		},
		{
			name: "incremental ADD before any SET does not mark the source seen",
			step: op("file", ADD, pod("c")),
			want: map[Mode][]string{
				Incremental:        {"ADD file: default/c@1"},
				Snapshot:           {"SET file: default/c@1"},
				SnapshotAndUpdates: {"SET file: default/c@1"},
			},
		},
		{
			name:  "incremental UPDATE with a spec change",
			setup: []step{base},
			step:  op("api", UPDATE, pod("b", rv("2"), image("img:2"))),
			want: map[Mode][]string{
				Incremental:        {"UPDATE api: default/b@2"},
				Snapshot:           {"SET api: default/a@1 default/b@2"},
				SnapshotAndUpdates: {"UPDATE api: default/b@2"},
			},
		},
		{
			name:  "incremental UPDATE of an unknown pod adds it",
			setup: []step{base},
			step:  op("api", UPDATE, pod("c")),
			want: map[Mode][]string{
				Incremental:        {"ADD api: default/c@1"},
				Snapshot:           {"SET api: default/a@1 default/b@1 default/c@1"},
				SnapshotAndUpdates: {"SET api: default/a@1 default/b@1 default/c@1"},
			},
		},
		{
			name:  "incremental UPDATE with status alone",
			setup: []step{base},
			step:  op("api", UPDATE, pod("b", rv("2"), phase(api.PodFailed))),
			want: map[Mode][]string{
				Incremental:        {"RECONCILE api: default/b@2"},
				Snapshot:           {},
				SnapshotAndUpdates: {},
			},
		},
		{
			name:  "incremental DELETE",
			setup: []step{base},
			step:  op("api", DELETE, pod("a", rv("2"), deleting(30))),
			want: map[Mode][]string{
				Incremental:        {"DELETE api: default/a@2"},
				Snapshot:           {"SET api: default/a@2 default/b@1"},
				SnapshotAndUpdates: {"DELETE api: default/a@2"},
			},
		},
		{
			name:  "incremental REMOVE",
			setup: []step{base},
			step:  op("api", REMOVE, pod("a")),
			want: map[Mode][]string{
				Incremental:        {"REMOVE api: default/a@1"},
				Snapshot:           {"SET api: default/b@1"},
				SnapshotAndUpdates: {"SET api: default/b@1"},
			},
		},
		{
			name:  "incremental REMOVE of an unknown pod",
			setup: []step{base},
			step:  op("api", REMOVE, pod("x")),
			want:  map[Mode][]string{},
		},
		{
			name:  "snapshots hold every source's pods, static pod beside its mirror",
			setup: []step{set("api", pod("a"), pod("etcd-node-a", uid("mirror"), ann(MirrorAnnotation, "h")))},
			step:  set("file", pod("etcd-node-a", uid("h"), rv(""))),
			want: map[Mode][]string{
				Incremental:        {"ADD file: default/etcd-node-a@"},
				Snapshot:           {"SET file: default/a@1 default/etcd-node-a@1 default/etcd-node-a@"},
				SnapshotAndUpdates: {"SET file: default/a@1 default/etcd-node-a@1 default/etcd-node-a@"},
			},
		},
		{
			name:  "a source's first SET with nothing new still tells it is ready",
			setup: []step{op("http", ADD, pod("a"))},
			step:  set("http", pod("a")),
			want: map[Mode][]string{
				Incremental:        {"ADD http: "},
				Snapshot:           {"SET http: default/a@1"},
				SnapshotAndUpdates: {"SET http: default/a@1"},
			},
		},
		{
			name:  "a second source's SET leaves the first alone",
			setup: []step{base},
			step:  set("file"),
			want: map[Mode][]string{
				Incremental:        {"ADD file: "},
				Snapshot:           {"SET file: default/a@1 default/b@1"},
				SnapshotAndUpdates: {"SET file: default/a@1 default/b@1"},
			},
		},
		{
			name: "duplicate names in one update: the first wins",
			step: set("file", pod("a", uid("1"), image("first")), pod("a", uid("2")), pod("b")),
			want: map[Mode][]string{
				Incremental:        {"ADD file: default/a@1 default/b@1"},
				Snapshot:           {"SET file: default/a@1 default/b@1"},
				SnapshotAndUpdates: {"SET file: default/a@1 default/b@1"},
			},
		},
		{
			name:  "unknown op is refused",
			setup: []step{base},
			step:  op("api", Op(0), pod("a")),
			want:  map[Mode][]string{},
		},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				s := newStorage(mode, fixedClock(), func(string, error) {})
				for _, st := range tt.setup {
					s.merge(st.source, st.u)
				}
				got := summary(s.merge(tt.step.source, tt.step.u))
				want := tt.want[mode]
				if want == nil {
					want = []string{}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("updates (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestMergeReportsDroppedPods(t *testing.T) {
	var r reports
	s := newStorage(Incremental, fixedClock(), r.report)
	s.merge("file", PodUpdate{Op: SET, Pods: pods(pod("a", uid("1")), pod("a", uid("2")), pod("b", uid("1")), pod("c", uid("")), nil)})
	s.merge("file", PodUpdate{Op: Op(9)})
	want := []error{
		&DuplicateError{Source: "file", Pod: "default/a", UID: "2"},
		&DuplicateError{Source: "file", Pod: "default/b", UID: "1", ByUID: true},
		&UpdateError{Source: "file", Op: SET, Reason: "pod default/c has no uid, ignoring it"},
		&UpdateError{Source: "file", Op: SET, Reason: "nil pod ignored"},
		&UpdateError{Source: "file", Op: Op(9), Reason: "unknown operation, update ignored"},
	}
	if diff := cmp.Diff(want, r.errs); diff != "" {
		t.Fatalf("reports (-want +got):\n%s", diff)
	}
	var de *DuplicateError
	if !errors.As(r.errs[0], &de) || de.UID != "2" {
		t.Fatalf("errors.As(%v) = %v, want the duplicate with uid 2", r.errs[0], de)
	}
}

func TestMergeStampsCopies(t *testing.T) {
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	in := pod("a", ann("team", "x"))
	out := s.merge("api", PodUpdate{Op: SET, Pods: pods(in)})
	if len(out) != 1 || len(out[0].Pods) != 1 {
		t.Fatalf("got %v, want one ADD of one pod", summary(out))
	}
	got := out[0].Pods[0]
	if got == in {
		t.Fatalf("PodConfig handed out the source's own object")
	}
	if diff := cmp.Diff(map[string]string{"team": "x"}, in.Metadata.Annotations); diff != "" {
		t.Fatalf("the source's pod was modified (-want +got):\n%s", diff)
	}
	wantAnn := map[string]string{"team": "x", SourceAnnotation: "api", SeenAnnotation: "2026-12-02T10:00:00Z"}
	if diff := cmp.Diff(wantAnn, got.Metadata.Annotations); diff != "" {
		t.Fatalf("stamped annotations (-want +got):\n%s", diff)
	}

	// An update replaces the stored pod but keeps when it was first seen; the
	// pod handed out before is left as it was.
	out = s.merge("api", PodUpdate{Op: SET, Pods: pods(pod("a", rv("2"), ann("team", "y")))})
	if len(out) != 1 || out[0].Op != UPDATE {
		t.Fatalf("got %v, want one UPDATE", summary(out))
	}
	wantAnn = map[string]string{"team": "y", SourceAnnotation: "api", SeenAnnotation: "2026-12-02T10:00:00Z"}
	if diff := cmp.Diff(wantAnn, out[0].Pods[0].Metadata.Annotations); diff != "" {
		t.Fatalf("updated annotations (-want +got):\n%s", diff)
	}
	if v := got.Metadata.Annotations["team"]; v != "x" {
		t.Fatalf("earlier output changed: team = %q, want x", v)
	}
}

// TestMergeKeepsMirrorAnnotation checks which mirror annotation the stored pod
// carries, as the kubelet keeps it: the one it first had, through later
// changes; one it lacked comes in only with a change the kubelet acts on.
func TestMergeKeepsMirrorAnnotation(t *testing.T) {
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	s.merge("api", PodUpdate{Op: SET, Pods: pods(pod("a", ann(MirrorAnnotation, "h1")), pod("b"))})
	mirrorOf := func(us []PodUpdate) []string {
		var out []string
		for _, u := range us {
			for _, p := range u.Pods {
				v, ok := p.Metadata.Annotations[MirrorAnnotation]
				if !ok {
					v = "none"
				}
				out = append(out, u.Op.String()+" "+p.Metadata.Name+" mirror="+v)
			}
		}
		return out
	}
	steps := []struct {
		pods []*api.Pod
		want []string
	}{
		// b picks up a mirror annotation with nothing else changed: kept out.
		{pods(pod("a", rv("2"), ann(MirrorAnnotation, "h2")), pod("b", rv("2"), ann(MirrorAnnotation, "h3"))), nil},
		{pods(pod("a", rv("3"), ann(MirrorAnnotation, "h2"), label("x", "1")), pod("b", rv("3"), ann(MirrorAnnotation, "h3"), label("x", "1"))),
			[]string{"UPDATE a mirror=h1", "UPDATE b mirror=h3"}},
		{pods(pod("a", rv("4"), label("x", "2")), pod("b", rv("4"), label("x", "2"))),
			[]string{"UPDATE a mirror=h1", "UPDATE b mirror=h3"}},
	}
	for i, st := range steps {
		got := mirrorOf(s.merge("api", PodUpdate{Op: SET, Pods: st.pods}))
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Fatalf("step %d: updates (-want +got):\n%s", i, diff)
		}
	}
}

func TestMergeDeletedThenUndeleted(t *testing.T) {
	s := newStorage(Incremental, fixedClock(), func(string, error) {})
	s.merge("api", PodUpdate{Op: SET, Pods: pods(pod("a"))})
	s.merge("api", PodUpdate{Op: SET, Pods: pods(pod("a", rv("2"), deleting(30)))})
	// Status alone moving on a deleting pod is a reconcile, not a second delete.
	got := summary(s.merge("api", PodUpdate{Op: SET, Pods: pods(pod("a", rv("3"), deleting(30), phase(api.PodSucceeded)))}))
	if diff := cmp.Diff([]string{"RECONCILE api: default/a@3"}, got); diff != "" {
		t.Fatalf("updates (-want +got):\n%s", diff)
	}
}

func TestOpAndModeStrings(t *testing.T) {
	got := []string{SET.String(), ADD.String(), UPDATE.String(), REMOVE.String(), DELETE.String(), RECONCILE.String(),
		Op(0).String(), Op(42).String(), Incremental.String(), Snapshot.String(), SnapshotAndUpdates.String(), Mode(7).String()}
	want := []string{"SET", "ADD", "UPDATE", "REMOVE", "DELETE", "RECONCILE", "Op(0)", "Op(42)",
		"Incremental", "Snapshot", "SnapshotAndUpdates", "Mode(7)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("strings (-want +got):\n%s", diff)
	}
}

func TestIsMirrorAndStatic(t *testing.T) {
	tests := []struct {
		name         string
		pod          *api.Pod
		mirror, stat bool
	}{
		{"api pod", pod("a", ann(SourceAnnotation, SourceAPI)), false, false},
		{"mirror pod", pod("a", ann(SourceAnnotation, SourceAPI), ann(MirrorAnnotation, "h")), true, false},
		{"file pod", pod("a", ann(SourceAnnotation, SourceFile)), false, true},
		{"http pod", pod("a", ann(SourceAnnotation, SourceHTTP)), false, true},
		{"unstamped pod", pod("a"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsMirrorPod(tt.pod); got != tt.mirror {
				t.Fatalf("IsMirrorPod = %v, want %v", got, tt.mirror)
			}
			if got := IsStaticPod(tt.pod); got != tt.stat {
				t.Fatalf("IsStaticPod = %v, want %v", got, tt.stat)
			}
		})
	}
}
