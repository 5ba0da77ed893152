package docs

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

// TestGapAuditDocumented wants docs/TRACE.md's JSON schema to list every
// member of the missed step and the summary's missed totals, and
// docs/PROTOCOL.md's section 14 to show a gap audit from a replayed
// recording (its lines are checked against the golden trace by
// TestProtocolSnippets).
func TestGapAuditDocumented(t *testing.T) {
	documented := documentedPaths(t, readDoc(t, "TRACE.md"))
	written := map[string]bool{}
	for _, kind := range []trace.Kind{trace.KindMissed, trace.KindStop} {
		stepPaths(t, trace.Step{Kind: kind}, written)
	}
	for p := range written {
		if (strings.HasPrefix(p, "missed.") || strings.HasPrefix(p, "stop.missed")) && !documented[p] {
			t.Errorf("docs/TRACE.md does not document %s", p)
		}
	}

	_, snippet, ok := strings.Cut(protocolSection(t, 14), "<!-- trace: lifecycle-gone -->\n```text\n")
	if !ok {
		t.Fatalf("section 14 quotes no trace of lifecycle-gone")
	}
	snippet, _, _ = strings.Cut(snippet, "```")
	for _, how := range []string{trace.MissedSkipped, trace.MissedUnseen} {
		if !strings.Contains(snippet, "  missed        "+how+" ") {
			t.Errorf("section 14's trace shows no %s pod", how)
		}
	}
}

// TestGapRealRunQuoted wants every line of the indented block after
// "<!-- gap: real.jsonl -->" in docs/PROTOCOL.md to be a line of
// testdata/gap/real.jsonl, the JSON trace e2e's TestGapAudit keeps of a run
// against the real apiserver (-update-gap-docs), and the block to show its
// missed steps.
func TestGapRealRunQuoted(t *testing.T) {
	_, after, ok := strings.Cut(readDoc(t, "PROTOCOL.md"), "\n<!-- gap: real.jsonl -->\n")
	if !ok {
		t.Fatalf("docs/PROTOCOL.md quotes no real run's gap audit")
	}
	var block []string
	for _, l := range strings.Split(strings.TrimLeft(after, "\n"), "\n") {
		q, ok := strings.CutPrefix(l, "    ")
		if !ok {
			break
		}
		block = append(block, q)
	}
	checkLines(t, strings.Join(block, "\n"), filepath.Join("testdata", "gap", "real.jsonl"))
	missed := 0
	for _, l := range block {
		var s struct {
			Missed *trace.Missed `json:"missed"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Errorf("not a JSON trace line: %v: %s", err, l)
		}
		if s.Missed != nil {
			missed++
		}
	}
	if missed == 0 {
		t.Fatalf("the quoted run (%d lines) shows no missed step", len(block))
	}
}
