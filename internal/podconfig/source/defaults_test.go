package source

import (
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
)

func decodeOne(t *testing.T, manifest string) *api.Pod {
	t.Helper()
	ps, _, err := decodeManifest([]byte(manifest), true)
	if err != nil || len(ps) != 1 {
		t.Fatalf("decodeManifest = %d pods, %v; want one pod", len(ps), err)
	}
	return ps[0]
}

func TestStaticDefaults(t *testing.T) {
	const withNS = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: edge\n  uid: given\nspec:\n  containers:\n  - {name: c, image: i}\n"
	tolerations := "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: i}]\n" +
		"  tolerations:\n  - {operator: Exists, effect: NoExecute, tolerationSeconds: 30}\n  - {key: k, operator: Exists, effect: NoSchedule}\n"
	type got struct {
		Name, Namespace, NodeName, Phase string
		HashIsUID, UIDIsHex              bool
		UID                              string
		Tolerations                      []string
	}
	hexUID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	tests := []struct {
		name     string
		manifest string
		src      static
		want     got
	}{
		{
			name:     "file pod: every default",
			manifest: manifest("web", "nginx") + "status:\n  phase: Running\n",
			src:      static{node: node, location: "/etc/kubernetes/manifests/web.yaml", isFile: true},
			want: got{Name: "web-node-a", Namespace: "default", NodeName: node, Phase: "Pending", HashIsUID: true, UIDIsHex: true,
				Tolerations: []string{"/Exists//NoExecute"}},
		},
		{
			name:     "http pod: no toleration",
			manifest: manifest("web", "nginx"),
			src:      static{node: node, location: "http://config/pods"},
			want:     got{Name: "web-node-a", Namespace: "default", NodeName: node, Phase: "Pending", HashIsUID: true, UIDIsHex: true, Tolerations: nil},
		},
		{
			name:     "namespace and uid kept when given",
			manifest: withNS,
			src:      static{node: node, location: "/m/web.yaml", isFile: true},
			want: got{Name: "web-node-a", Namespace: "edge", NodeName: node, Phase: "Pending", HashIsUID: true, UID: "given",
				Tolerations: []string{"/Exists//NoExecute"}},
		},
		{
			name:     "a matching toleration is replaced, not repeated",
			manifest: tolerations,
			src:      static{node: node, location: "/m/web.yaml", isFile: true},
			want: got{Name: "web-node-a", Namespace: "default", NodeName: node, Phase: "Pending", HashIsUID: true, UIDIsHex: true,
				Tolerations: []string{"/Exists//NoExecute", "k/Exists//NoSchedule"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decodeOne(t, tt.manifest)
			if err := tt.src.apply(p, false); err != nil {
				t.Fatalf("apply: %v", err)
			}
			g := got{Name: p.Metadata.Name, Namespace: p.Metadata.Namespace, NodeName: p.Spec.NodeName, Phase: p.Status.Phase,
				HashIsUID: p.Metadata.Annotations[podconfig.HashAnnotation] == p.Metadata.UID, UIDIsHex: hexUID.MatchString(p.Metadata.UID)}
			if !g.UIDIsHex {
				g.UID = p.Metadata.UID
			}
			for _, tol := range p.Spec.Tolerations {
				if tol.TolerationSeconds != nil {
					t.Fatalf("toleration %+v kept its tolerationSeconds", tol)
				}
				g.Tolerations = append(g.Tolerations, tol.Key+"/"+tol.Operator+"/"+tol.Value+"/"+tol.Effect)
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Fatalf("defaulted pod (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStaticUIDDependsOnContentNodeAndPlace(t *testing.T) {
	uidOf := func(m string, s static) string {
		p := decodeOne(t, m)
		if err := s.apply(p, false); err != nil {
			t.Fatalf("apply: %v", err)
		}
		return p.Metadata.UID
	}
	file := static{node: node, location: "/m/web.yaml", isFile: true}
	url := static{node: node, location: "http://config/pods"}
	base, baseURL := uidOf(manifest("web", "nginx"), file), uidOf(manifest("web", "nginx"), url)
	tests := []struct {
		name string
		uid  string
		same bool
	}{
		{"same manifest read again", uidOf(manifest("web", "nginx"), file), true},
		{"other image", uidOf(manifest("web", "nginx:2"), file), false},
		{"other path", uidOf(manifest("web", "nginx"), static{node: node, location: "/m/other.yaml", isFile: true}), false},
		{"other node", uidOf(manifest("web", "nginx"), static{node: "node-b", location: "/m/web.yaml", isFile: true}), false},
		{"url rather than file", baseURL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.uid == base; got != tt.same {
				t.Fatalf("uid %s vs %s: equal = %v, want %v", tt.uid, base, got, tt.same)
			}
		})
	}
	// The kubelet hashes a URL's pods without the node: every node that reads
	// the URL gives them the same UID.
	if other := uidOf(manifest("web", "nginx"), static{node: "node-b", location: "http://config/pods"}); other != baseURL {
		t.Fatalf("http uid on node-b = %s, want %s as on %s", other, baseURL, node)
	}
}

// TestStaticPodGolden defaults a kubeadm-style manifest and compares the pod
// with a golden file: every default at once, and nothing else lost.
func TestStaticPodGolden(t *testing.T) {
	p := decodeOne(t, string(readTestdata(t, "static-etcd.yaml")))
	if err := (static{node: node, location: "/etc/kubernetes/manifests/etcd.yaml", isFile: true}).apply(p, false); err != nil {
		t.Fatalf("apply: %v", err)
	}
	got, err := p.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	checkGolden(t, "static-etcd.golden.json", got)
}

func TestDecodeManifest(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		allowList bool
		want      []string
		list      bool
	}{
		{name: "JSON pod", data: string(readTestdata(t, "static-web.json")), want: []string{"/web"}},
		{name: "YAML pod", data: string(readTestdata(t, "static-etcd.yaml")), want: []string{"kube-system/etcd"}},
		{name: "YAML pod list", data: string(readTestdata(t, "podlist.yaml")), allowList: true, want: []string{"edge/cache", "/proxy"}, list: true},
		{name: "JSON pod list", data: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]}`, allowList: true, want: []string{"/a"}, list: true},
		{name: "empty pod list", data: `{"kind":"PodList","apiVersion":"v1","items":[]}`, allowList: true, want: []string{}, list: true},
		{name: "real pod from the apiserver", data: string(readTestdata(t, "../../../testdata/pod.json")), want: []string{"default/web-frontend-7d9f8b6c5d-x2kqz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods, list, err := decodeManifest([]byte(tt.data), tt.allowList)
			if err != nil {
				t.Fatalf("decodeManifest: %v", err)
			}
			if diff := cmp.Diff(tt.want, names(pods)); diff != "" || list != tt.list {
				t.Fatalf("list = %v, want %v; pods (-want +got):\n%s", list, tt.list, diff)
			}
		})
	}
}

func TestInvalidManifests(t *testing.T) {
	pod := func(meta, spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: " + meta + "\nspec: " + spec + "\n"
	}
	ok := "{containers: [{name: c, image: i}]}"
	tests := []struct {
		name  string
		data  string
		field string // the InvalidPodError's field, or "" for a syntax error
	}{
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "kind"},
		{"not a pod", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n", "kind"},
		{"a pod list where a pod is wanted", "apiVersion: v1\nkind: PodList\nitems: []\n", "kind"},
		{"wrong apiVersion", "apiVersion: v2\nkind: Pod\nmetadata: {name: a}\nspec: " + ok + "\n", "apiVersion"},
		{"no name", pod("{}", ok), "metadata.name"},
		{"upper-case name", pod("{name: Web}", ok), "metadata.name"},
		{"bad namespace", pod("{name: a, namespace: a.b}", ok), "metadata.namespace"},
		{"no containers", pod("{name: a}", "{}"), "spec.containers"},
		{"container without image", pod("{name: a}", "{containers: [{name: c}]}"), "spec.containers[0].image"},
		{"container without name", pod("{name: a}", "{containers: [{image: i}]}"), "spec.containers[0].name"},
		{"two containers, one name", pod("{name: a}", "{containers: [{name: c, image: i}, {name: c, image: j}]}"), "spec.containers[1].name"},
		{"not YAML", "kind: Pod\n  bad: [\n", ""},
		{"broken JSON", `{"kind":"Pod","metadata":{"name":"a"`, ""},
		{"a YAML list", "- a\n- b\n", ""},
		{"a JSON string", `"Pod"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods, _, err := decodeManifest([]byte(tt.data), false)
			if err == nil {
				err = (static{node: node, location: "/m/a.yaml", isFile: true}).apply(pods[0], false)
			}
			if err == nil {
				t.Fatalf("got no error, want one")
			}
			var ip *InvalidPodError
			isInvalid := errors.As(err, &ip)
			if tt.field == "" {
				if isInvalid {
					t.Fatalf("got %v, want a syntax error", err)
				}
				return
			}
			if !isInvalid || ip.Field != tt.field {
				t.Fatalf("got %v, want an InvalidPodError on %s", err, tt.field)
			}
		})
	}
}

func FuzzDecodeManifest(f *testing.F) {
	for _, name := range []string{"static-etcd.yaml", "static-web.json", "podlist.yaml", "../../../testdata/pod.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte("kind: Pod\n"))
	f.Add([]byte(`{"kind":"PodList","items":[null,{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pods, list, err := decodeManifest(data, true)
		if err != nil {
			return
		}
		for _, p := range pods {
			if p == nil {
				t.Fatalf("nil pod without an error")
			}
			if err := (static{node: node, location: "/m", isFile: true}).apply(p, list); err != nil {
				continue
			}
			if _, err := p.MarshalJSON(); err != nil {
				t.Fatalf("a defaulted pod does not encode: %v", err)
			}
		}
	})
}
