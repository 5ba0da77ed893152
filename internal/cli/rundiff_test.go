package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// podwatch diff's exit status says equivalent (0), different (1) or
// unreadable (2), for recordings and JSON traces alike.
func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	traceA, _ := replayTrace(t, "lifecycle", "--trace-format", "json")
	traceB, _ := replayTrace(t, "lifecycle", "--trace-format", "json")
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Each trace is cut after its last push, as stableTrace cuts it: at
	// speed 0 whether the replay sends one more request before it stops is
	// a race.
	traceA, traceB = stableTrace("json", traceA), stableTrace("json", traceB)
	a, b := write("a.jsonl", traceA), write("b.jsonl", traceB)
	// The trace with one MODIFIED event told as ADDED, and its line.
	lines := strings.Split(traceB, "\n")
	doctored := -1
	for i, l := range lines {
		if strings.Contains(l, `"kind":"event"`) && strings.Contains(l, `"type":"MODIFIED"`) {
			lines[i] = strings.Replace(l, `"type":"MODIFIED"`, `"type":"ADDED"`, 1)
			doctored = i + 1
			break
		}
	}
	if doctored < 0 {
		t.Fatal("no MODIFIED event in the trace")
	}
	c := write("c.jsonl", strings.Join(lines, "\n"))
	// A replay that relists past most of the recording (gapFault) sees
	// fewer versions, and ends in the recording's state all the same.
	gap, _ := replayTrace(t, "lifecycle", "--trace-format", "json", "--fault", gapFault)
	relisted := write("gap.jsonl", stableTrace("json", gap))
	junk := write("junk.json", "not a run\n")

	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout, or stderr for code 2
	}{
		{"recording against itself", []string{"diff", fixturePath("watch-list"), fixturePath("watch-list")}, 0, []string{"equivalent"}},
		{"trace against trace", []string{"diff", a, b}, 0, []string{"equivalent", "(trace,"}},
		{"recording against its replay's trace", []string{"diff", "--rv", "exact", fixturePath("lifecycle"), a}, 0, []string{"equivalent"}},
		{"doctored trace", []string{"diff", a, c}, 1, []string{"first divergence", "B line " + strconv.Itoa(doctored), "event ADDED", "events only in A: 1, only in B: 1"}},
		{"fewer versions, the same end", []string{"diff", fixturePath("lifecycle"), relisted}, 1, []string{"first divergence", "same final state: both end with push rv=230 [shop/web-1@220 shop/web-4@230]"}},
		{"json against protobuf", []string{"diff", fixturePath("lifecycle"), fixturePath("lifecycle-protobuf")}, 1, []string{"first divergence", "requests only in A: 1, only in B: 1", "events only in A: 0, only in B: 0", "states pushed only in A: 0, only in B: 0"}},
		{"unreadable", []string{"diff", a, junk}, 2, []string{junk + ":1:"}},
		{"missing", []string{"diff", a, filepath.Join(dir, "none")}, 2, []string{"none"}},
		{"one argument", []string{"diff", a}, 2, []string{"want two runs"}},
		{"bad --rv", []string{"diff", "--rv", "loose", a, b}, 2, []string{"--rv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			out := r.stdout
			if tt.code == 2 {
				out = r.stderr
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
