package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/podconfig"
)

// TestRequests checks what the flags turn into on the wire.
func TestRequests(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		name string
		args []string
		// want is each request's path and the query parameters that matter
		// (timeoutSeconds is random, so it is only checked to be there on
		// watches).
		want []string
	}{{
		name: "watch list by default",
		args: []string{"--node", node1},
		want: []string{"/api/v1/pods allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-1&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"},
	}, {
		name: "paged list then watch",
		args: []string{"--node", node1, "--watch-list=false", "--chunk-size", "2"},
		want: []string{
			"/api/v1/pods fieldSelector=spec.nodeName%3Dnode-1&limit=2",
			"/api/v1/pods allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-1&resourceVersion=10&watch=true",
		},
	}, {
		name: "no paging",
		args: []string{"--node", node1, "--watch-list=false", "--chunk-size=0"},
		want: []string{
			"/api/v1/pods fieldSelector=spec.nodeName%3Dnode-1",
			"/api/v1/pods allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-1&resourceVersion=10&watch=true",
		},
	}, {
		name: "selectors and namespace",
		args: []string{"--node", node1, "-n", "default", "-l", "app=web", "--field-selector", "status.phase!=Failed"},
		want: []string{"/api/v1/namespaces/default/pods allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-1%2Cstatus.phase%21%3DFailed&labelSelector=app%3Dweb&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"},
	}, {
		name: "all nodes",
		args: []string{"--all-nodes", "--selector", "app=web"},
		want: []string{"/api/v1/pods allowWatchBookmarks=true&labelSelector=app%3Dweb&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"},
	}, {
		name: "node from the hostname",
		want: []string{"/api/v1/pods allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-1&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := startFakeAPI(t)
			args := append(append([]string{"watch", "--max-events", "1"}, api.connArgs()...), tt.args...)
			mustRun(t, args...)
			var got []string
			for _, u := range api.Requests() {
				q := u.Query()
				if q.Get("watch") == "true" && q.Get("timeoutSeconds") == "" {
					t.Errorf("watch %s has no timeoutSeconds", u)
				}
				q.Del("timeoutSeconds")
				got = append(got, u.Path+" "+q.Encode())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONLossless checks that -o json prints each pod as the server sent it,
// with only the pod config's annotations added.
func TestJSONLossless(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	r := mustRun(t, append([]string{"watch", "--node", node1, "-o", "json", "--max-events", node1Count}, api.connArgs()...)...)
	sent := map[string]any{} // resourceVersion -> object
	for _, p := range append(api.cluster.initial, scriptPods(api.cluster)...) {
		var obj map[string]any
		if err := json.Unmarshal(p.raw, &obj); err != nil {
			t.Fatalf("decode sent pod: %v", err)
		}
		sent[obj["metadata"].(map[string]any)["resourceVersion"].(string)] = obj
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	for i, line := range lines {
		var u struct {
			Op     string           `json:"op"`
			Source string           `json:"source"`
			Pods   []map[string]any `json:"pods"`
		}
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		if u.Source != "api" || u.Pods == nil {
			t.Fatalf("line %d: source %q, pods %v; want source api and a pods array", i+1, u.Source, u.Pods)
		}
		for _, pod := range u.Pods {
			md := pod["metadata"].(map[string]any)
			ann := md["annotations"].(map[string]any)
			if ann[podconfig.SourceAnnotation] != "api" || ann[podconfig.SeenAnnotation] != "2026-12-02T12:00:00Z" {
				t.Errorf("line %d: annotations source=%v seen=%v; want api and the injected clock", i+1, ann[podconfig.SourceAnnotation], ann[podconfig.SeenAnnotation])
			}
			delete(ann, podconfig.SourceAnnotation)
			delete(ann, podconfig.SeenAnnotation)
			want, ok := sent[md["resourceVersion"].(string)]
			if !ok {
				t.Fatalf("line %d: pod at resourceVersion %v was never sent", i+1, md["resourceVersion"])
			}
			if diff := cmp.Diff(want, any(pod)); diff != "" {
				t.Errorf("line %d: pod %v differs from what the server sent (-sent +printed):\n%s", i+1, md["name"], diff)
			}
		}
	}
}

func scriptPods(c *fakeCluster) []testPod {
	var out []testPod
	for _, ev := range c.script {
		if ev.typ != "BOOKMARK" {
			out = append(out, ev.pod)
		}
	}
	return out
}

func TestUsageErrors(t *testing.T) {
	clitest.Isolate(t)
	fixture := filepath.Join(t.TempDir(), "f")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"watch", "--frob"}, "flag provided but not defined: -frob"},
		{"bad output", []string{"watch", "-o", "wide"}, `-o "wide": want text, json or yaml`},
		{"bad mode", []string{"watch", "--mode", "fast"}, `--mode "fast"`},
		{"node and all nodes", []string{"watch", "--node", "a", "--all-nodes"}, "--node and --all-nodes cannot be combined"},
		{"negative max events", []string{"watch", "--max-events", "-1"}, "--max-events -1"},
		{"negative chunk size", []string{"watch", "--chunk-size", "-5"}, "--chunk-size -5"},
		{"bad number", []string{"watch", "--max-events", "many"}, `invalid value "many" for flag -max-events`},
		{"events with manifests", []string{"watch", "--events", "--manifests", "/etc/kubernetes/manifests"}, "--manifests and --manifest-url do not apply"},
		{"events with mode", []string{"watch", "--events", "--mode", "snapshot"}, "--mode does not apply"},
		{"replay with a server", []string{"watch", "--replay", fixture, "--server", "https://x"}, "connection flags do not apply"},
		{"speed without replay", []string{"watch", "--speed", "2"}, "--speed applies to --replay only"},
		{"extra argument", []string{"watch", "pods"}, `unexpected argument "pods"`},
		{"bad request timeout", []string{"watch", "--request-timeout", "soon", "--server", "https://127.0.0.1:1"}, `--request-timeout "soon"`},
		{"record without out", []string{"record"}, "--out is required"},
		{"serve without fixture", []string{"serve"}, "no fixture given"},
		{"serve two fixtures", []string{"serve", "a", "b"}, `unexpected argument "b"`},
		{"version argument", []string{"version", "x"}, `unexpected argument "x"`},
		{"record argument", []string{"record", "--out", fixture, "pods"}, `unexpected argument "pods"`},
		{"check argument", []string{"check", "pods"}, `unexpected argument "pods"`},
		{"probe argument", []string{"probe", "--write", "pods"}, `unexpected argument "pods"`},
		{"check bad output", []string{"check", "-o", "yaml"}, `-o "yaml": want text or json`},
		{"probe bad output", []string{"probe", "--output", "yaml"}, `-o "yaml": want text or json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != base.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, base.ExitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("stderr %q does not say %q", r.stderr, tt.want)
			}
			if !strings.Contains(r.stderr, "--help' for usage") {
				t.Fatalf("stderr %q does not point to --help", r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout: got %q, want nothing", r.stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"podwatch watch", "podwatch serve", "podwatch record", "podwatch version"}},
		{[]string{"help", "watch"}, []string{"Usage: podwatch watch"}},
		{[]string{"watch", "--help"}, []string{"Usage: podwatch watch", "-n, --namespace namespace", "-l, --selector selector", "-o, --output format", "--kubeconfig file", "--request-timeout", "--watch-list", "--chunk-size int", "-v level", "--max-events", "--replay fixture", `{"op":"SET|ADD|UPDATE|REMOVE|DELETE|RECONCILE"`}},
		{[]string{"watch", "-h"}, []string{"Usage: podwatch watch"}},
		{[]string{"record", "--help"}, []string{"Usage: podwatch record", "--out folder", "--token token"}},
		{[]string{"serve", "--help"}, []string{"Usage: podwatch serve", "--addr address", "--speed float"}},
		{[]string{"version", "--help"}, []string{"Usage: podwatch version"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("help does not mention %q:\n%s", w, r.stdout)
				}
			}
		})
	}
	t.Run("record has no replay", func(t *testing.T) {
		r := run(t, "record", "--help")
		if strings.Contains(r.stdout, "--replay fixture") {
			t.Fatalf("record --help offers --replay:\n%s", r.stdout)
		}
	})
}

func TestVersion(t *testing.T) {
	r := mustRun(t, "version")
	if !strings.HasPrefix(r.stdout, "podwatch ") || !strings.Contains(r.stdout, "go1.") {
		t.Fatalf("version: got %q, want podwatch VERSION (goX ...)", r.stdout)
	}
}

// TestVerboseNeverPrintsToken runs the trace at each level and checks what
// it shows, and that the bearer token is never among it.
func TestVerboseNeverPrintsToken(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		level   string
		want    []string
		notWant []string
	}{
		{"2", []string{"reflector: watch-list", "reflector: replace rv=10 items=2", "reflector: event ADDED rv=11"}, []string{"GET https://"}},
		{"6", []string{"GET https://127.0.0.1:", "200 OK in "}, []string{"Request Headers:", "Response Body"}},
		{"7", []string{"Request Headers:", "Authorization: Bearer <masked>", "Accept: application/json", "Response Headers:", "Content-Type: application/json"}, []string{"Response Body"}},
		{"8", []string{"Authorization: Bearer <masked>", `Response Body of GET https://`, `{"type":"ADDED"`, "(cut short)"}, []string{"curl "}},
		{"9", []string{"curl -v -XGET -H 'Accept: application/json", "-H 'Authorization: Bearer <masked>'", " 'https://127.0.0.1:", `Response Body of GET https://`}, nil},
	}
	for _, tt := range tests {
		t.Run("v"+tt.level, func(t *testing.T) {
			api := startFakeAPI(t)
			r := mustRun(t, append([]string{"watch", "--node", node1, "-v", tt.level, "--max-events", node1Count}, api.connArgs()...)...)
			if strings.Contains(r.stderr, clitest.Token) || strings.Contains(r.stdout, clitest.Token) {
				t.Fatalf("the token was printed; stderr:\n%s", r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not show %q:\n%s", w, r.stderr)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(r.stderr, w) {
					t.Errorf("stderr shows %q below its level:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestVerboseCurl checks what -v 9 adds: a curl command line for every
// request, and bodies shown up to longBodyLogLimit bytes instead of
// bodyLogLimit.
func TestVerboseCurl(t *testing.T) {
	const bodyLogLimit, longBodyLogLimit = 1024, 10240 // kubectl's, as base's -v log promises
	clitest.Isolate(t)
	api := startFakeAPI(t)
	r := mustRun(t, append([]string{"watch", "--node", node1, "-v", "9", "--max-events", node1Count}, api.connArgs()...)...)
	if strings.Contains(r.stderr, clitest.Token) {
		t.Fatalf("the token was printed; stderr:\n%s", r.stderr)
	}
	var curls, longest int
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(line, "curl ") {
			curls++
		}
		if _, body, ok := strings.Cut(line, "Response Body of "); ok {
			_, body, _ = strings.Cut(body, ": ")
			longest = max(longest, len(strings.TrimSuffix(body, " (cut short)")))
		}
	}
	if n := len(api.Requests()); curls != n {
		t.Errorf("%d curl command lines for %d requests:\n%s", curls, n, r.stderr)
	}
	if longest <= bodyLogLimit || longest > longBodyLogLimit {
		t.Errorf("longest body shown: %d bytes, want more than %d and at most %d", longest, bodyLogLimit, longBodyLogLimit)
	}
}

// TestInterrupt checks that ending the context (Ctrl-C) stops a watch that
// would otherwise go on forever, with status 0.
func TestInterrupt(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		args []string
		last string // the last thing printed
	}{
		{[]string{"--node", node1}, "REMOVE"},
		{[]string{"--node", node1, "--events"}, "DELETED"},
	}
	for _, tt := range tests {
		args := tt.args
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			api := startFakeAPI(t)
			ctx, cancel := context.WithCancel(context.Background())
			stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
			go func() {
				defer cancel()
				if err := stdout.WaitFor(tt.last); err != nil {
					t.Error(err)
				}
			}()
			r := runCtx(t, ctx, stdout, stderr, append(append([]string{"watch"}, api.connArgs()...), args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
			// Ctrl-C ends the run as any other end does: with its closing line.
			checkQuietEnd(t, r.stderr)
		})
	}
}

// TestFailures checks that a failure no retry can cure ends the command with
// status 1 and one line on stderr that says what went wrong and what to fix.
func TestFailures(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"untrusted server", []string{"--server", api.srv.URL, "--token", clitest.Token}, []string{"certificate", "--certificate-authority"}},
		{"missing token file", []string{"--server", api.srv.URL, "--certificate-authority", api.caFile, "--kubeconfig", tokenFileKubeconfig(t, api)}, []string{"no-such-token"}},
		{"missing kubeconfig", []string{"--kubeconfig", missing}, []string{"missing.yaml"}},
		{"nothing to connect to", nil, []string{"no configuration found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"watch", "--node", node1}, tt.args...)...)
			if r.code != base.ExitError {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, base.ExitError, r.stderr)
			}
			if n := strings.Count(r.stderr, "\n"); n != 1 || !strings.HasPrefix(r.stderr, "podwatch: ") {
				t.Fatalf("stderr: got %q, want one line starting with podwatch:", r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			if strings.Contains(r.stderr, clitest.Token) {
				t.Fatalf("the token was printed: %q", r.stderr)
			}
		})
	}
}

// TestRetries checks that a failure waiting may cure (a refused token, which
// may not be bound to its role yet) is retried, before the first sync as
// after it, each retry told on stderr, and that Ctrl-C then exits 0.
func TestRetries(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong token", []string{"--token", "wrong"}, "401 Unauthorized"},
		{"wrong token, list", []string{"--token", "wrong", "--watch-list=false"}, "list pods: GET"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runUntilRetry(t, tt.want, append([]string{"watch", "--node", node1, "--server", api.srv.URL, "--certificate-authority", api.caFile}, tt.args...)...)
			if !strings.Contains(r.stderr, "401") || strings.Contains(r.stderr, clitest.Token) {
				t.Fatalf("stderr %q: want the 401 named and no token", r.stderr)
			}
		})
	}
}

// tokenFileKubeconfig is a kubeconfig whose user's token file does not exist.
func tokenFileKubeconfig(t *testing.T, api *fakeAPI) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: %q, certificate-authority: %q}
users:
- name: u
  user: {tokenFile: %q}
contexts:
- name: c
  context: {cluster: k, user: u}
`, api.srv.URL, api.caFile, filepath.Join(dir, "no-such-token"))
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const staticManifest = `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  namespace: kube-system
spec:
  containers:
  - name: web
    image: registry.k8s.io/pause:3.10
`

// TestStaticSources runs the file and http sources beside the api source.
func TestStaticSources(t *testing.T) {
	clitest.Isolate(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "web.yaml"), []byte(staticManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	manifests := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, staticManifest)
	}))
	defer manifests.Close()
	// A static pod has no resourceVersion and no IP.
	static := func(src string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^ADD +` + src + ` +kube-system/static-web-node-1 +Pending +node-1 +<none> +<none>\n`)
	}
	tests := []struct {
		name string
		args []string
		want *regexp.Regexp
	}{
		{"file", []string{"--manifests", dir}, static("file")},
		{"http", []string{"--manifest-url", manifests.URL}, static("http")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := startFakeAPI(t)
			ctx, cancel := context.WithCancel(context.Background())
			stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
			go func() {
				defer cancel()
				for _, re := range []*regexp.Regexp{tt.want, regexp.MustCompile(`(?m)^REMOVE `)} {
					if err := stdout.WaitForMatch(re); err != nil {
						t.Error(err)
						return
					}
				}
			}()
			args := append(append([]string{"watch", "--node", node1}, tt.args...), api.connArgs()...)
			r := runCtx(t, ctx, stdout, stderr, args...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
			// The api source's updates are unchanged by the static source's,
			// cell by cell: the static pod's cells widen some columns.
			var apiRows [][]string
			for _, row := range textRows(r.stdout) {
				if row[1] == "api" {
					apiRows = append(apiRows, row)
				}
			}
			want, err := os.ReadFile(filepath.Join("testdata", "text.golden"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(textRows(string(want)), apiRows); diff != "" {
				t.Fatalf("api updates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEventsYAML checks that --events -o yaml prints each event the server
// sent as one YAML document.
func TestEventsYAML(t *testing.T) {
	clitest.Isolate(t)
	api := startFakeAPI(t)
	r := mustRun(t, append([]string{"watch", "--node", node1, "--events", "-o", "yaml", "--max-events", node1Count}, api.connArgs()...)...)
	docs := strings.Split(strings.TrimPrefix(r.stdout, "---\n"), "---\n")
	sent := api.Sent()
	if len(docs) != len(sent) {
		t.Fatalf("got %d documents, want %d (one per event sent)", len(docs), len(sent))
	}
	for i := range docs {
		j, err := yaml.YAMLToJSON([]byte(docs[i]))
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var got, want any
		if err := json.Unmarshal(j, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(sent[i]), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("document %d differs from event %d (-sent +printed):\n%s", i+1, i+1, diff)
		}
	}
}

// TestYAMLMatchesJSON checks that each -o yaml document holds what the
// matching -o json line does.
func TestYAMLMatchesJSON(t *testing.T) {
	readGolden := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	docs := strings.Split(strings.TrimPrefix(readGolden("yaml.golden"), "---\n"), "---\n")
	lines := strings.Split(strings.TrimSuffix(readGolden("json.golden"), "\n"), "\n")
	if len(docs) != len(lines) {
		t.Fatalf("got %d yaml documents, want %d (one per json line)", len(docs), len(lines))
	}
	for i := range docs {
		j, err := yaml.YAMLToJSON([]byte(docs[i]))
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var fromYAML, fromJSON any
		if err := json.Unmarshal(j, &fromYAML); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[i]), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromJSON, fromYAML); diff != "" {
			t.Fatalf("document %d differs from json line %d (-json +yaml):\n%s", i+1, i+1, diff)
		}
	}
}

// brokenPipe is a stdout whose reader has gone.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestOutputFailure checks that a failed write to stdout ends the command
// with status 1, in both output paths.
func TestOutputFailure(t *testing.T) {
	clitest.Isolate(t)
	for _, extra := range [][]string{nil, {"--events"}} {
		t.Run(strings.Join(append([]string{"watch"}, extra...), " "), func(t *testing.T) {
			api := startFakeAPI(t)
			stderr := clitest.NewSyncBuffer()
			env := testEnv(nil, stderr)
			env.Stdout = brokenPipe{}
			done := make(chan int, 1)
			go func() {
				done <- env.Run(context.Background(), append(append([]string{"watch", "--node", node1}, extra...), api.connArgs()...))
			}()
			select {
			case code := <-done:
				if code != base.ExitError || !strings.Contains(stderr.String(), "write output") {
					t.Fatalf("exit %d, stderr %q; want 1 and the failed write named", code, stderr)
				}
			case <-time.After(clitest.Wait):
				t.Fatalf("did not end within %s of a failed write", clitest.Wait)
			}
		})
	}
}
