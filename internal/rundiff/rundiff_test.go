package rundiff_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/rundiff"
)

const fixtures = "../../testdata/fixtures/"

func load(t *testing.T, path string) *rundiff.Run {
	t.Helper()
	run, err := rundiff.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func compare(t *testing.T, a, b *rundiff.Run, mode rundiff.RVMode) *rundiff.Result {
	t.Helper()
	res, err := rundiff.Compare(a, b, rundiff.Options{RV: mode})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func counts(run *rundiff.Run) map[rundiff.Kind]int {
	n := map[rundiff.Kind]int{}
	for _, it := range run.Items {
		n[it.Kind]++
	}
	return n
}

// Each bundled fixture is equivalent to itself, read twice, in either mode,
// and reads as requests, events and pushes: an empty run would be
// equivalent to anything.
func TestBundledFixturesEquivalentToThemselves(t *testing.T) {
	dirs, err := filepath.Glob(fixtures + "*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no bundled fixtures (%v)", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			a, b := load(t, dir), load(t, dir)
			for kind, n := range counts(a) {
				if n == 0 {
					t.Fatalf("no %s items read from %s", kind, dir)
				}
			}
			if len(counts(a)) != 3 {
				t.Fatalf("read %v from %s, want requests, events and pushes", counts(a), dir)
			}
			for _, mode := range []rundiff.RVMode{rundiff.RVExact, rundiff.RVRank} {
				if res := compare(t, a, b, mode); !res.Equivalent() {
					var out bytes.Buffer
					rundiff.WriteText(&out, res)
					t.Errorf("%s against itself, %s: not equivalent:\n%s", dir, mode, out.String())
				}
			}
		})
	}
}

// The pushes computed from a recording are those of the golden file that
// the replay to podwatch's reflector gives (fixture's bundled test).
func TestRecordingPushesAreTheReplays(t *testing.T) {
	for _, name := range []string{"lifecycle", "watch-list"} {
		t.Run(name, func(t *testing.T) {
			golden, err := os.ReadFile(fixtures + name + "/pushes.golden")
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Split(string(golden), "\n") {
				if strings.HasPrefix(l, "push ") {
					want = append(want, l)
				}
			}
			var got []string
			for _, it := range load(t, fixtures+name).Items {
				if it.Kind == rundiff.KindPush {
					got = append(got, goldenPush(it))
				}
			}
			if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("pushes:\n%s\nwant (golden):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func goldenPush(it rundiff.Item) string {
	pods := make([]string, len(it.Pods))
	for i, p := range it.Pods {
		pods[i] = p.Pod + "@" + p.RV
	}
	return fmt.Sprintf("push rv=%s [%s]", it.RV, strings.Join(pods, " "))
}

// lifecycle-protobuf is the lifecycle scenario again, on another cluster,
// asked in protobuf. By rank, its events and pushes are the lifecycle's;
// the runs part at the watch sent while the apiserver restarted, answered
// 403 in one run and 503 in the other (the restarting apiserver's
// authorizer and readiness warm-up), and nothing else differs. Exactly,
// they part at the first push, whose versions differ by the writes each
// cluster's start-up made.
func TestLifecycleAgainstLifecycleProtobuf(t *testing.T) {
	a, b := load(t, fixtures+"lifecycle"), load(t, fixtures+"lifecycle-protobuf")
	recA, err := fixture.Load(fixtures + "lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	recB, err := fixture.Load(fixtures + "lifecycle-protobuf")
	if err != nil {
		t.Fatal(err)
	}
	// The exchange whose answers differ, found from the recordings.
	at := -1
	for i := range recA.Exchanges {
		if recA.Exchanges[i].Response.Status != recB.Exchanges[i].Response.Status {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("the recordings' answers no longer differ; this test's premise is gone")
	}
	res := compare(t, a, b, rundiff.RVRank)
	if res.Equivalent() {
		t.Fatal("equivalent by rank, want a divergence")
	}
	where := fmt.Sprintf("exchange %d", at+1) // counted from 1, as the trace counts requests
	if d := res.First; d.A == nil || d.B == nil || d.A.Where != where || d.B.Where != where ||
		!strings.HasSuffix(d.A.Text, fmt.Sprintf("-> %d", recA.Exchanges[at].Response.Status)) ||
		!strings.HasSuffix(d.B.Text, fmt.Sprintf("-> %d", recB.Exchanges[at].Response.Status)) {
		t.Fatalf("first divergence %+v %+v, want the answers of %s", d.A, d.B, where)
	}
	for kind, want := range map[rundiff.Kind]int{rundiff.KindRequest: 1, rundiff.KindEvent: 0, rundiff.KindPush: 0} {
		if o := res.Only[kind]; len(o.A) != want || len(o.B) != want {
			t.Errorf("%s only in A %v, only in B %v; want %d each", kind, o.A, o.B, want)
		}
	}

	exact := compare(t, a, b, rundiff.RVExact)
	if exact.Equivalent() || exact.First.A.Where != "exchange 1" || !strings.HasPrefix(exact.First.A.Text, "push ") {
		t.Fatalf("exactly: first divergence %+v, want the first push", exact.First)
	}
}

// A recording with one event doctored differs from the original there: the
// first divergence names the exchange and event, and the summary counts it.
func TestDoctoredRecording(t *testing.T) {
	rec, err := fixture.Load(fixtures + "lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	ex, event := doctor(t, rec, `"type":"MODIFIED"`, `"type":"DELETED"`)
	dir := t.TempDir()
	if err := rec.Save(dir); err != nil {
		t.Fatal(err)
	}
	res := compare(t, load(t, fixtures+"lifecycle"), load(t, dir), rundiff.RVRank)
	if res.Equivalent() {
		t.Fatal("a doctored recording is equivalent to its original")
	}
	where := fmt.Sprintf("exchange %d event %d", ex+1, event+1) // counted from 1
	if d := res.First; d.A == nil || d.B == nil || d.A.Where != where || d.B.Where != where ||
		!strings.HasPrefix(d.A.Text, "event MODIFIED ") || !strings.HasPrefix(d.B.Text, "event DELETED ") {
		t.Fatalf("first divergence %+v %+v, want the events at %s", d.A, d.B, where)
	}
	if o := res.Only[rundiff.KindEvent]; len(o.A) != 1 || len(o.B) != 1 {
		t.Fatalf("events only in A %v, only in B %v; want the doctored one each", o.A, o.B)
	}
	if o := res.Only[rundiff.KindPush]; len(o.A) == 0 || len(o.B) == 0 {
		t.Fatalf("no pushed state only in one run (A %v, B %v): the deletion changes them", o.A, o.B)
	}
	var out bytes.Buffer
	if err := rundiff.WriteText(&out, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "A "+where+": event MODIFIED") || !strings.Contains(out.String(), "events only in A: 1, only in B: 1") {
		t.Fatalf("report does not name the divergence:\n%s", out.String())
	}
}

// doctor replaces the first old in a watch body of rec with new, in the
// read that holds it, and returns the exchange and the event's index.
func doctor(t *testing.T, rec *fixture.Recording, old, new string) (exchange, event int) {
	t.Helper()
	for i := range rec.Exchanges {
		if rec.Exchanges[i].Request.Query.Get("watch") != "true" {
			continue
		}
		events := 0
		for j, c := range rec.Exchanges[i].Response.Chunks {
			if k := bytes.Index(c.Data, []byte(old)); k >= 0 {
				events += bytes.Count(c.Data[:k], []byte("\n"))
				c.Data = bytes.Replace(c.Data, []byte(old), []byte(new), 1)
				rec.Exchanges[i].Response.Chunks[j] = c
				return i, events
			}
			events += bytes.Count(c.Data, []byte("\n"))
		}
	}
	t.Fatalf("no %s in a watch body", old)
	return 0, 0
}

// Inputs that are not runs fail with the file and where in it.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := os.ReadFile(fixtures + "lifecycle/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(fixtures + "lifecycle-protobuf/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	badBase64 := bytes.Replace(pb, []byte(`"base64": "`), []byte(`"base64": "!`), 1)
	tests := []struct {
		name, path string
		check      func(error) bool
	}{
		{"missing", filepath.Join(dir, "nothing"), isInput(0)},
		{"not json", write("junk", "hello"), isInput(1)},
		{"empty", write("empty", ""), isInput(1)},
		{"neither", write("neither.json", `{"a":1}`), isInput(1)},
		{"trace bad line", write("bad.jsonl", `{"at_ms":0,"kind":"start","start":{"server":"s"}}`+"\n"+`{"kind":`+"\n"), isInput(2)},
		{"trace push inconsistent", write("push.jsonl", `{"at_ms":0,"kind":"push","push":{"count":2,"added":["a/b@1"]}}`+"\n"), isInput(1)},
		{"recording cut short", write("cut.json", string(good[:len(good)/2])), isFormat},
		{"recording bad version", write("v9.json", `{"version":9,"exchanges":[]}`), isFormat},
		{"protobuf read not base64", write("pb.json", string(badBase64)), isFormatAtRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rundiff.Load(tt.path)
			if err == nil || !tt.check(err) {
				t.Fatalf("Load(%s): %v (%T), want another error", tt.path, err, err)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("error %q does not name the file", err)
			}
		})
	}
}

func isInput(line int) func(error) bool {
	return func(err error) bool {
		var ie *rundiff.InputError
		return errors.As(err, &ie) && ie.Line == line
	}
}

// isFormatAtRead is a *fixture.FormatError naming the exchange and read.
func isFormatAtRead(err error) bool {
	var fe *fixture.FormatError
	return errors.As(err, &fe) && fe.Exchange >= 0 && fe.Chunk >= 0
}

func isFormat(err error) bool {
	var fe *fixture.FormatError
	return errors.As(err, &fe)
}

// lifecycle is in format version 1; written again it is version 2, and
// reads as the same run: the diff compares runs, not files.
func TestFormatVersions(t *testing.T) {
	rec, err := fixture.Load(fixtures + "lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 1 {
		t.Fatalf("lifecycle is in format version %d; this test wants a version 1 original", rec.Version)
	}
	dir := t.TempDir()
	if err := rec.Save(dir); err != nil {
		t.Fatal(err)
	}
	again, err := fixture.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != fixture.Version {
		t.Fatalf("written again in version %d, want %d", again.Version, fixture.Version)
	}
	if res := compare(t, load(t, fixtures+"lifecycle"), load(t, dir), rundiff.RVExact); !res.Equivalent() {
		t.Fatalf("version %d copy not equivalent: first divergence %+v %+v", fixture.Version, res.First.A, res.First.B)
	}
}

// Runs that part on the way but end with the same pods at the same
// versions, one having seen fewer versions (a relist skipped some), say
// so: exactly, and by rank, where the two runs rank their versions
// differently; a run that ends elsewhere says the states differ.
func TestSameFinalState(t *testing.T) {
	push := func(where, rv string, pods ...rundiff.PodAt) rundiff.Item {
		return rundiff.Item{Kind: rundiff.KindPush, Where: where, RV: rv, Pods: pods}
	}
	at := func(pod, rv string) rundiff.PodAt { return rundiff.PodAt{Pod: pod, RV: rv} }
	watched := &rundiff.Run{Path: "watched", Form: "trace", Items: []rundiff.Item{
		push("line 1", "5", at("ns/a", "5")),
		push("line 2", "6", at("ns/a", "6")),
		push("line 3", "8", at("ns/a", "6"), at("ns/b", "8")),
	}}
	relisted := &rundiff.Run{Path: "relisted", Form: "trace", Items: []rundiff.Item{
		push("line 1", "5", at("ns/a", "5")),
		push("line 9", "8", at("ns/a", "6"), at("ns/b", "8")),
	}}
	elsewhere := &rundiff.Run{Path: "elsewhere", Form: "trace", Items: []rundiff.Item{
		push("line 1", "5", at("ns/a", "5")),
		push("line 9", "8", at("ns/b", "8")),
	}}
	// The same history on a cluster whose versions run 100 higher.
	shifted := &rundiff.Run{Path: "shifted", Form: "trace", Items: []rundiff.Item{
		push("line 1", "105", at("ns/a", "105")),
		push("line 9", "108", at("ns/a", "106"), at("ns/b", "108")),
	}}
	for _, tc := range []struct {
		name string
		b    *rundiff.Run
		mode rundiff.RVMode
		same bool
		want string
	}{
		{"fewer versions, exactly", relisted, rundiff.RVExact, true, "same final state: both end with push rv=8 [ns/a@6 ns/b@8]\n      A line 3, B line 9\n"},
		{"fewer versions, by rank", relisted, rundiff.RVRank, true, "same final state: both end with push rv=8 [ns/a@6 ns/b@8]\n"},
		{"another cluster, by rank", shifted, rundiff.RVRank, true, "same final state by rank: the same pods, their versions in the same order\n  A line 3: push rv=8 [ns/a@6 ns/b@8]\n  B line 9: push rv=108 [ns/a@106 ns/b@108]\n"},
		{"another cluster, exactly", shifted, rundiff.RVExact, false, "final states differ:\n"},
		{"another end", elsewhere, rundiff.RVRank, false, "final states differ:\n  A line 3: push rv=8 [ns/a@6 ns/b@8]\n  B line 9: push rv=8 [ns/b@8]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := compare(t, watched, tc.b, tc.mode)
			if res.Equivalent() {
				t.Fatal("equivalent, want the runs to part")
			}
			if res.End.Same != tc.same {
				t.Fatalf("End.Same = %t, want %t (%+v %+v)", res.End.Same, tc.same, res.End.A, res.End.B)
			}
			var out bytes.Buffer
			if err := rundiff.WriteText(&out, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Fatalf("report lacks %q:\n%s", tc.want, out.String())
			}
		})
	}
	// Equivalent runs need no word on their end.
	var out bytes.Buffer
	if err := rundiff.WriteText(&out, compare(t, watched, watched, rundiff.RVExact)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "final state") {
		t.Fatalf("an equivalent report tells the final state:\n%s", out.String())
	}
}
