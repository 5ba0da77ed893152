package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
)

var bundledFixtures = []string{"lifecycle", "watch-list"}

func fixturePath(name string) string { return filepath.Join("..", "..", "testdata", "fixtures", name) }

// replayTrace replays a bundled fixture at full speed with the trace in a
// file, extra flags added, and returns the trace.
func replayTrace(t *testing.T, fixture string, extra ...string) (trace string, r result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace")
	args := append([]string{"watch", "--replay", fixturePath(fixture), "--speed", "0", "--trace-file", file}, extra...)
	r = mustRun(t, args...)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read the trace: %v", err)
	}
	return string(data), r
}

// What a trace may say differently from run to run of one replay: the port
// the fixture is served on, and how the body bytes were cut into reads (the
// kernel and net/http decide that). Times are the injected clock's.
var (
	portRE      = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	textReadRE  = regexp.MustCompile(`(?m)^ +[0-9.]+  #\d+ read +.*\n`)
	textReadsRE = regexp.MustCompile(` in \d+ reads?, `)
	jsonReadRE  = regexp.MustCompile(`(?m)^\{[^\n]*"kind":"read"[^\n]*\n`)
	jsonReadsRE = regexp.MustCompile(`"reads":\d+`)
)

// stableTrace is the part of a replay's trace that does not depend on
// timing. It ends at the last push: what follows is how the replay was
// stopped, and at speed 0 that is a race between the fixture server ending
// the last watch as the recording did and the replay noticing it is over
// (then the trace has one request more, cut short).
func stableTrace(format, s string) string {
	marker := "  push "
	if format == "json" {
		marker = `"kind":"push"`
	}
	if i := strings.LastIndex(s, marker); i >= 0 {
		end := strings.IndexByte(s[i:], '\n')
		s = s[:i+end+1]
	}
	s = portRE.ReplaceAllString(s, "127.0.0.1:PORT")
	if format == "json" {
		s = jsonReadRE.ReplaceAllString(s, "")
		return jsonReadsRE.ReplaceAllString(s, `"reads":"N"`)
	}
	s = textReadRE.ReplaceAllString(s, "")
	return textReadsRE.ReplaceAllString(s, " in N reads, ")
}

// TestTraceGolden replays each bundled fixture (lifecycle has a 410 and a
// relist, watch-list a 503, a 410 and a relist as a watch list) and compares
// the trace, text and JSON, with the golden files. Read steps are compared
// apart, by checkReads: their number depends on timing, not on podwatch.
// The text trace is compared twice: as --trace=full tells it (every
// explanation every time: docs/PROTOCOL.md quotes it), and as a plain
// --trace tells it (each explained once, then briefly).
func TestTraceGolden(t *testing.T) {
	modes := map[string][]string{
		"text":  {"--trace=full", "--trace-format", "text"},
		"brief": {"--trace-format", "text"},
		"json":  {"--trace-format", "json"},
	}
	for _, fx := range bundledFixtures {
		for _, mode := range []string{"text", "brief", "json"} {
			format := mode
			if mode == "brief" {
				format = "text"
			}
			t.Run(fx+"/"+mode, func(t *testing.T) {
				t.Parallel()
				got, r := replayTrace(t, fx, modes[mode]...)
				if r.stdout == "" {
					t.Fatalf("no pod updates on stdout beside the trace")
				}
				switch mode {
				case "json":
					checkReads(t, got)
				case "text":
					// The pod updates beside the trace; docs/PROTOCOL.md quotes them.
					checkGolden(t, "trace-"+fx+".stdout.golden", r.stdout)
				}
				want := "  trace         end after "
				if format == "json" {
					want = `"kind":"stop"`
				}
				if last := traceTail(got); !strings.Contains(last, want) {
					t.Fatalf("the trace does not end with its summary: %q", last)
				}
				checkGolden(t, "trace-"+fx+"."+mode+".golden", stableTrace(format, got))
			})
		}
	}
}

// jsonStep is what the tests read back of a JSON trace line.
type jsonStep struct {
	Kind string `json:"kind"`
	Req  int    `json:"req"`
	Read *struct {
		Bytes  int64 `json:"bytes"`
		Offset int64 `json:"offset"`
	} `json:"read"`
	BodyEnd *struct {
		Bytes int64 `json:"bytes"`
		Reads int   `json:"reads"`
	} `json:"body-end"`
}

func parseJSONTrace(t *testing.T, trace string) []jsonStep {
	return parseTraceLines[jsonStep](t, trace)
}

// parseTraceLines reads a JSON trace, one step a line, into the members of
// T a test looks at.
func parseTraceLines[T any](t *testing.T, trace string) []T {
	t.Helper()
	var steps []T
	for i, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		var s T
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("trace line %d is not JSON: %v\n%s", i+1, err, line)
		}
		steps = append(steps, s)
	}
	return steps
}

// checkReads checks each body's reads: contiguous from offset 0, adding up
// to the bytes its end reports, and as many as it counts.
func checkReads(t *testing.T, trace string) {
	t.Helper()
	next := map[int]int64{}
	reads := map[int]int{}
	ends := 0
	for _, s := range parseJSONTrace(t, trace) {
		switch {
		case s.Read != nil:
			if s.Read.Offset != next[s.Req] {
				t.Fatalf("request %d: a read at offset %d, want %d", s.Req, s.Read.Offset, next[s.Req])
			}
			next[s.Req] += s.Read.Bytes
			reads[s.Req]++
		case s.BodyEnd != nil:
			ends++
			if s.BodyEnd.Bytes != next[s.Req] || s.BodyEnd.Reads != reads[s.Req] {
				t.Fatalf("request %d: the body ended after %d bytes in %d reads; the reads told add up to %d bytes in %d",
					s.Req, s.BodyEnd.Bytes, s.BodyEnd.Reads, next[s.Req], reads[s.Req])
			}
		}
	}
	if ends == 0 {
		t.Fatalf("no body ended in the trace")
	}
}

// --trace-format alone asks for the trace it formats, on stderr, as with
// --trace: beside --trace-html too, which has no format of its own. Each
// run says where the page went, and none ends with the closing line of a
// run without a trace on stderr, which the trace's own summary replaces.
func TestTraceFormatImpliesTrace(t *testing.T) {
	clitest.Isolate(t)
	page := filepath.Join(t.TempDir(), "run.html")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"alone", []string{"--trace-format", "json"}},
		{"beside a page", []string{"--trace-format", "json", "--trace-html", page}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, append([]string{"watch", "--replay", fixturePath("lifecycle"), "--speed", "0"}, tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) < 2 || !strings.Contains(lines[0], `"kind":"start"`) {
				t.Fatalf("stderr does not begin with a JSON trace:\n%s", r.stderr)
			}
			last := lines[len(lines)-1]
			if slices.Contains(tc.args, "--trace-html") {
				if want := "podwatch: wrote the trace's page to " + page; last != want {
					t.Fatalf("last line %q, want %q", last, want)
				}
				lines = lines[:len(lines)-1]
			}
			if end := lines[len(lines)-1]; !strings.Contains(end, `"kind":"stop"`) {
				t.Fatalf("the trace does not end with its stop, but %q:\n%s", end, r.stderr)
			}
			if strings.Contains(r.stderr, "podwatch: holding") {
				t.Fatalf("a closing line beside the trace's summary:\n%s", r.stderr)
			}
		})
	}
}

func traceTail(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestTraceFlags checks the trace flags' refusals and that --help documents
// the JSON schema.
func TestTraceFlags(t *testing.T) {
	clitest.Isolate(t)
	missing := filepath.Join(t.TempDir(), "no-such-dir", "trace")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown format", []string{"--trace", "--trace-format", "xml"}, base.ExitUsage, `--trace-format "xml": want text or json`},
		{"one file for both", []string{"--trace-file", "same", "--trace-html", "same"}, base.ExitUsage, "--trace-file and --trace-html name the same file"},
		{"a file that cannot be made", []string{"--trace-file", missing}, base.ExitError, "trace: open " + missing},
		{"a page that cannot be made", []string{"--trace-html", missing}, base.ExitError, "trace: open " + missing},
		{"a trace mode that is not one", []string{"--trace=loud"}, base.ExitUsage, "want true, false or full"},
		{"a width too narrow", []string{"--trace", "--trace-width", "30"}, base.ExitUsage, "--trace-width 30: want 0 (never wrap) or at least 40 columns"},
		{"a width without a trace", []string{"--trace-width", "80"}, base.ExitUsage, "--trace-width applies to --trace or --trace-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, append([]string{"watch", "--replay", fixturePath("lifecycle"), "--speed", "0"}, tt.args...)...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantErr) {
				t.Fatalf("stderr %q, want it to contain %q", r.stderr, tt.wantErr)
			}
		})
	}
	r := mustRun(t, "watch", "--help")
	for _, want := range []string{"--trace\n", "--trace=full", "--trace-width columns", "--trace-file file", "--trace-format format", "--trace-html file",
		`{"at_ms":N,"kind":K,"req":N,K:{...}}`, "docs/TRACE.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("watch --help does not say %q:\n%s", want, r.stdout)
		}
	}
}
