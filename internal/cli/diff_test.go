package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/trace"
)

// modifiedDiffs is, for each MODIFIED event of a JSON trace, in order, the
// pod, its resourceVersion, the one diffed against and the changes, on one
// line each; clients are named when the trace is a proxy's.
func modifiedDiffs(t *testing.T, traceJSON string) []string {
	t.Helper()
	var out []string
	for i, line := range strings.Split(strings.TrimSuffix(traceJSON, "\n"), "\n") {
		var st struct {
			Kind   string       `json:"kind"`
			Client string       `json:"client"`
			Event  *trace.Event `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("trace line %d: %v", i+1, err)
		}
		if st.Event == nil || st.Event.Type != "MODIFIED" {
			continue
		}
		e := st.Event
		diff, err := json.Marshal(e.Diff)
		if err != nil {
			t.Fatal(err)
		}
		who := ""
		if st.Client != "" {
			who, _, _ = strings.Cut(st.Client, " from ")
			who += " "
		}
		out = append(out, fmt.Sprintf("%s%s/%s rv=%s from=%s %s", who, e.Namespace, e.Name, e.ResourceVersion, e.DiffFrom, diff))
	}
	return out
}

// diffMemberRE finds the members of an -o json line's diff member.
var diffMemberRE = regexp.MustCompile(`"diff":(\{.*\})\}$`)

// updateDiffs is, for each -o json line with a diff member, in order, its
// op and each pod's changes, one line per pod.
func updateDiffs(t *testing.T, stdout string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var u struct {
			Op   string                    `json:"op"`
			Diff map[string][]trace.Change `json:"diff"`
		}
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatalf("-o json line %q: %v", line, err)
		}
		for _, pod := range sortedKeysOf(u.Diff) {
			diff, _ := json.Marshal(u.Diff[pod])
			out = append(out, u.Op+" "+pod+" "+string(diff))
		}
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestDiffReplay replays lifecycle (and its protobuf recording, and
// lifecycle again in protobuf and CBOR, and with its first watch cut) with
// --diff: each MODIFIED event of the JSON trace tells the same changes
// whatever the wire format, those of the golden file; the -o json lines beside it tell the same changes per
// pod; the text trace shows them under each event.
func TestDiffReplay(t *testing.T) {
	clitest.Isolate(t)
	runs := []struct {
		name, fixture string
		extra         []string
	}{
		{"json", "lifecycle", nil},
		{"protobuf recording", "lifecycle-protobuf", []string{"--content-type", "protobuf"}},
		// The same script recorded with a watch list: the first diffs are
		// against the initial events.
		{"watch-list recording", "watch-list", nil},
		{"json recording read as protobuf", "lifecycle", []string{"--content-type", "protobuf"}},
		{"json recording read as cbor", "lifecycle", []string{"--content-type", "cbor"}},
		// The first watch broken off after its third event and resumed:
		// the versions kept carry over to the resumed watch.
		{"json, the first watch cut", "lifecycle", []string{"--fault", "cut:events=3,on=watch,nth=1"}},
		{"protobuf, the first watch cut", "lifecycle", []string{"--content-type", "protobuf", "--fault", "cut:events=3,on=watch,nth=1"}},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--trace-format", "json", "--diff", "-o", "json"}, run.extra...)
			got, r := replayTrace(t, run.fixture, args...)
			diffs := modifiedDiffs(t, got)
			if len(diffs) == 0 {
				t.Fatalf("no MODIFIED event in the trace")
			}
			gotDiffs := strings.Join(diffs, "\n") + "\n"
			if run.fixture == "lifecycle" {
				checkGolden(t, "diff-lifecycle.json.golden", gotDiffs)
			} else {
				// The other recordings were made apart: their pods and
				// changes are lifecycle's, their times and
				// resourceVersions are not.
				want, err := os.ReadFile(filepath.Join("testdata", "diff-lifecycle.json.golden"))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(recordedApart(string(want)), recordedApart(gotDiffs)); diff != "" {
					t.Fatalf("%s's diffs differ from lifecycle's (-lifecycle +%s):\n%s", run.fixture, run.fixture, diff)
				}
			}
			// Each MODIFIED changes one pod, printed as one update with a
			// diff member: the same changes.
			var want []string
			for _, line := range diffs {
				pod, rest, _ := strings.Cut(line, " rv=")
				want = append(want, pod+" "+rest[strings.Index(rest, " [")+1:])
			}
			var printed []string
			for _, line := range updateDiffs(t, r.stdout) {
				_, rest, _ := strings.Cut(line, " ")
				printed = append(printed, rest)
			}
			if diff := cmp.Diff(want, printed); diff != "" {
				t.Errorf("-o json's diffs differ from the trace's (-trace +stdout):\n%s", diff)
			}
		})
	}
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		got, _ := replayTrace(t, "lifecycle", "--diff")
		checkGolden(t, "trace-lifecycle-diff.text.golden", modifiedLines(got))
	})
}

var (
	timeRE = regexp.MustCompile(`"20\d\d-[0-9-]+T[0-9:]+Z"`)
	rvRE   = regexp.MustCompile(`(rv|from)=\d+`)
)

// recordedApart leaves out of diff lines what differs between two
// recordings of one script: times and resourceVersions.
func recordedApart(s string) string {
	return rvRE.ReplaceAllString(timeRE.ReplaceAllString(s, `"TIME"`), "$1=N")
}

// TestDiffEvents: with --events -o json, each MODIFIED event's line gains
// the changes of its object, the trace's, the first against the pod as
// listed (with a watch list, as its initial event brought it).
func TestDiffEvents(t *testing.T) {
	clitest.Isolate(t)
	for _, fx := range []string{"lifecycle", "watch-list"} {
		t.Run(fx, func(t *testing.T) {
			got, r := replayTrace(t, fx, "--trace-format", "json", "--diff", "--events", "-o", "json", "--watch-list="+strconv.FormatBool(fx == "watch-list"))
			var want []string
			for _, line := range modifiedDiffs(t, got) {
				pod, rest, _ := strings.Cut(line, " rv=")
				want = append(want, pod+" "+rest[strings.Index(rest, " [")+1:])
			}
			var printed []string
			for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				var ev struct {
					Type   string
					Object struct {
						Metadata struct{ Namespace, Name string }
					}
					Diff json.RawMessage
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				if (ev.Type == "MODIFIED") != (ev.Diff != nil) {
					t.Fatalf("a %s event with diff %s: %.300s", ev.Type, ev.Diff, line)
				}
				if ev.Diff != nil {
					printed = append(printed, ev.Object.Metadata.Namespace+"/"+ev.Object.Metadata.Name+" "+string(ev.Diff))
				}
			}
			if len(want) == 0 {
				t.Fatalf("no MODIFIED event in the trace")
			}
			if diff := cmp.Diff(want, printed); diff != "" {
				t.Errorf("--events' diffs differ from the trace's (-trace +stdout):\n%s", diff)
			}
		})
	}
}

// TestDiffSnapshot: in snapshot mode every update is a SET of all pods,
// and the pod config may fold two events into one; a SET line has a diff
// member when, and only for the pods that, changed since the last line.
func TestDiffSnapshot(t *testing.T) {
	clitest.Isolate(t)
	r := mustRun(t, "watch", "--replay", fixturePath("lifecycle"), "--speed", "0", "--mode", "snapshot", "-o", "json", "--diff")
	var prev map[string]string // pod -> its JSON on the last line
	withDiff := 0
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var u struct {
			Op   string                    `json:"op"`
			Pods []json.RawMessage         `json:"pods"`
			Diff map[string][]trace.Change `json:"diff"`
		}
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			t.Fatalf("-o json line %q: %v", line, err)
		}
		now := map[string]string{}
		for _, p := range u.Pods {
			var m struct {
				Metadata struct{ Namespace, Name string }
			}
			json.Unmarshal(p, &m)
			now[m.Metadata.Namespace+"/"+m.Metadata.Name] = string(p)
		}
		for pod, js := range now {
			old, ok := prev[pod]
			changed := ok && old != js
			if _, told := u.Diff[pod]; told != changed {
				t.Errorf("%s line: %s changed: %v, its diff told: %v", u.Op, pod, changed, told)
			}
			if changed && len(u.Diff[pod]) == 0 {
				t.Errorf("%s line: %s changed, its diff is empty", u.Op, pod)
			}
		}
		if len(u.Diff) > 0 {
			withDiff++
		}
		prev = now
	}
	if withDiff == 0 {
		t.Fatalf("no line has a diff member:\n%s", r.stdout)
	}
}

// modifiedLines are the text trace's MODIFIED events, each with the lines
// under it.
func modifiedLines(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(line, " MODIFIED "):
			in = true
		case in && strings.HasPrefix(line, strings.Repeat(" ", 25)):
		default:
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestDiffLeavesOut: --diff leaves out metadata.resourceVersion and
// managedFields, --diff=all tells them (every MODIFIED has a new
// resourceVersion), and without --diff nothing is diffed.
func TestDiffLeavesOut(t *testing.T) {
	clitest.Isolate(t)
	for _, tt := range []struct {
		flag      string
		wantRV    bool
		wantDiffs bool
	}{
		{"--diff", false, true},
		{"--diff=all", true, true},
		{"--diff=false", false, false},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			got, _ := replayTrace(t, "lifecycle", "--trace-format", "json", tt.flag)
			diffs := modifiedDiffs(t, got)
			if len(diffs) == 0 {
				t.Fatalf("no MODIFIED event in the trace")
			}
			for _, d := range diffs {
				hasRV := strings.Contains(d, `"path":"/metadata/resourceVersion"`)
				hasMF := strings.Contains(d, `"path":"/metadata/managedFields`)
				hasAny := !strings.HasSuffix(d, "from= null")
				switch {
				case hasRV != tt.wantRV:
					t.Errorf("resourceVersion told: %v, want %v: %s", hasRV, tt.wantRV, d)
				case hasMF && !tt.wantRV:
					t.Errorf("managedFields told: %s", d)
				case hasAny != tt.wantDiffs:
					t.Errorf("diffed: %v, want %v: %s", hasAny, tt.wantDiffs, d)
				}
			}
		})
	}
}

func TestDiffFlags(t *testing.T) {
	clitest.Isolate(t)
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"nowhere to show it", []string{"watch", "--replay", fixturePath("lifecycle"), "--diff"}, "--diff shows in a trace"},
		{"not in yaml", []string{"watch", "--replay", fixturePath("lifecycle"), "--diff", "-o", "yaml"}, "--diff shows in a trace"},
		{"an unknown value", []string{"watch", "--replay", fixturePath("lifecycle"), "--diff=some", "-o", "json"}, "want --diff, --diff=all or --diff=false"},
		{"a proxy without a trace", []string{"proxy", "--server", "http://127.0.0.1:1", "--diff"}, "--diff shows in the trace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != base.ExitUsage || !strings.Contains(r.stderr, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, base.ExitUsage, tt.wantErr)
			}
		})
	}
}

// diffUpstream answers each client with its own version of one pod: its
// list holds web with the image CLIENT:1, its watch modifies it to
// CLIENT:2, deletes it, and modifies it again. A client that asks for CBOR
// gets it.
func diffUpstream(w http.ResponseWriter, r *http.Request) {
	who := r.UserAgent()
	pod := func(image, rv string) string {
		return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"default","resourceVersion":%q},"spec":{"containers":[{"name":"main","image":"%s:%s"}]}}`, rv, who, image)
	}
	cbor := strings.HasPrefix(r.Header.Get("Accept"), "application/cbor")
	if r.URL.Query().Get("watch") != "true" {
		list := fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[%s]}`, strings.Replace(pod("1", "10"), `"kind":"Pod","apiVersion":"v1",`, "", 1))
		if !cbor {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, list)
			return
		}
		item, err := cborenc.EncodeJSON([]byte(list))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/cbor")
		w.Write(item)
		return
	}
	ct := "application/json"
	if cbor {
		ct = "application/cbor-seq"
	}
	w.Header().Set("Content-Type", ct)
	for _, ev := range []struct{ typ, image, rv string }{{"MODIFIED", "2", "11"}, {"DELETED", "2", "12"}, {"MODIFIED", "3", "13"}} {
		if !cbor {
			fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", ev.typ, pod(ev.image, ev.rv))
			continue
		}
		item, err := cborenc.EncodeEvent(ev.typ, []byte(pod(ev.image, ev.rv)))
		if err != nil {
			return
		}
		w.Write(item)
	}
}

// TestProxyDiff: clients through one proxy with --diff each get the
// changes against their own earlier version of the same pod, and none
// after it was deleted, in JSON and in CBOR.
func TestProxyDiff(t *testing.T) {
	clitest.Isolate(t)
	server, ca := startTLSUpstream(t, httptest.NewUnstartedServer(http.HandlerFunc(diffUpstream)))
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	p := startProxyCmd(t, "--server", server, "--certificate-authority", ca, "--token", "upstream-token",
		"--listen", "127.0.0.1:0", "--trace-file", file, "--trace-format", "json", "--diff")
	send := func(client, query string) {
		t.Helper()
		var header http.Header
		if strings.HasSuffix(client, "-cbor") {
			header = http.Header{"Accept": {"application/cbor"}}
		}
		getThrough(t, p.url, client, query, header)
	}
	send("informer-a", "limit=500")
	send("informer-b", "limit=500")
	send("informer-a", "watch=true&resourceVersion=10")
	send("informer-b", "watch=true&resourceVersion=10")
	send("informer-cbor", "limit=500")
	send("informer-cbor", "watch=true&resourceVersion=10")
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`informer-a default/web rv=11 from=10 [{"op":"replace","path":"/spec/containers/0/image","from":"informer-a:1","value":"informer-a:2"}]`,
		`informer-a default/web rv=13 from= null`,
		`informer-b default/web rv=11 from=10 [{"op":"replace","path":"/spec/containers/0/image","from":"informer-b:1","value":"informer-b:2"}]`,
		`informer-b default/web rv=13 from= null`,
		`informer-cbor default/web rv=11 from=10 [{"op":"replace","path":"/spec/containers/0/image","from":"informer-cbor:1","value":"informer-cbor:2"}]`,
		`informer-cbor default/web rv=13 from= null`,
	}
	if diff := cmp.Diff(want, modifiedDiffs(t, string(raw))); diff != "" {
		t.Fatalf("the proxy's diffs (-want +got):\n%s", diff)
	}
}
