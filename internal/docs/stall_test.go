package docs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/fixture"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/stall"
	"github.com/podwatch/podwatch/internal/trace/text"
)

// stallMarkerRE marks a block of docs/PROTOCOL.md holding the stall lines
// the text trace tells of exchange N of testdata/fixtures/FIXTURE, at the
// threshold given: <!-- stall: FIXTURE #N after DURATION -->.
var stallMarkerRE = regexp.MustCompile(`^<!-- stall: ([a-z0-9-]+) #(\d+) after ([0-9a-z.]+) -->$`)

// stallTick is how often the recorded watch is looked at, as the Tracer's
// check would, here on the recording's own clock.
const stallTick = 10 * time.Millisecond

// TestStallSnippets fails when a stall block of docs/PROTOCOL.md is not
// what podwatch's stall rules tell of the recorded watch it names, its
// timing replayed on a virtual clock.
func TestStallSnippets(t *testing.T) {
	found := 0
	for _, s := range parseSnippets(t, readDoc(t, "PROTOCOL.md")) {
		if s.source != "stall" {
			continue
		}
		found++
		rec, err := fixture.Load(filepath.Join(root, "testdata", "fixtures", s.fixture))
		if err != nil {
			t.Fatal(err)
		}
		after, err := time.ParseDuration(s.part)
		if err != nil || s.n < 1 || s.n > len(rec.Exchanges) {
			t.Fatalf("line %d: bad stall marker: %s #%d after %s", s.line, s.fixture, s.n, s.part)
		}
		got := recordedStalls(t, rec.Exchanges[s.n-1], s.n, after)
		if diff := cmp.Diff(strings.Split(s.text, "\n"), got); diff != "" {
			t.Errorf("line %d: the stall lines of %s #%d after %s differ (-doc +rules):\n%s", s.line, s.fixture, s.n, after, diff)
		}
	}
	if found == 0 {
		t.Fatal("docs/PROTOCOL.md has no stall snippet")
	}
}

// recordedStalls replays the timing of ex, request number req, into a
// stall.Silence on a virtual clock ticking every stallTick from each byte,
// and returns the text trace's lines for the stalls told: once a silence
// reaches after, and again as its verdict grows graver, as the Tracer does.
func recordedStalls(t *testing.T, ex fixture.Exchange, req int, after time.Duration) []string {
	t.Helper()
	var out bytes.Buffer
	sink := text.New(&out, text.Options{})
	opened := time.Unix(0, 0)
	s := stall.NewSilence(ex.Request.Query)
	s.Opened(opened)
	told, last := "", time.Duration(0)
	check := func(until time.Duration) {
		for at := last + after; at < until; at += stallTick {
			st := s.Judge(opened.Add(at))
			if rank(st.Verdict) <= rank(told) {
				continue
			}
			told = st.Verdict
			step := trace.Step{At: time.Duration(ex.Request.At) + at, Kind: trace.KindStall, Req: req, Stall: st}
			if err := sink.Step(step); err != nil {
				t.Fatal(err)
			}
		}
	}
	var pending []byte
	for _, c := range ex.Response.Chunks {
		at := time.Duration(c.At)
		check(at)
		s.Byte(opened.Add(at))
		told, last = "", at
		pending = append(pending, c.Data...)
		for {
			line, rest, ok := bytes.Cut(pending, []byte("\n"))
			if !ok {
				break
			}
			pending = rest
			typ, rv, end := eventOf(t, line)
			s.Event(opened.Add(at), typ, rv, end)
		}
	}
	check(time.Duration(ex.Response.End))
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// rank orders the verdicts, none first.
func rank(verdict string) int {
	return map[string]int{trace.VerdictQuiet: 1, trace.VerdictOverdue: 2, trace.VerdictDead: 3}[verdict]
}

// eventOf reads what a silence needs of one recorded JSON event.
func eventOf(t *testing.T, line []byte) (typ, rv string, initialEnd bool) {
	t.Helper()
	var e struct {
		Type   string
		Object struct {
			Metadata struct {
				ResourceVersion string
				Annotations     map[string]string
			}
		}
	}
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatalf("recorded event %q: %v", line, err)
	}
	m := e.Object.Metadata
	return e.Type, m.ResourceVersion, m.Annotations["k8s.io/initial-events-end"] == "true"
}
