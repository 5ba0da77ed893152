package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
	doc, err := os.ReadFile(filepath.Join(root, "docs", "TRACE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, schema, _ := strings.Cut(string(doc), "\n## JSON schema\n")
	documented := map[string]bool{}
	for _, m := range docPathRE.FindAllStringSubmatch(schema, -1) {
		documented[m[1]] = true
	}
	written := map[string]bool{}
	for _, s := range []trace.Step{{Kind: trace.KindMissed}, {Kind: trace.KindStop}} {
		field := map[trace.Kind]string{trace.KindMissed: "Missed", trace.KindStop: "Stop"}[s.Kind]
		fill(reflect.ValueOf(&s).Elem().FieldByName(field))
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		paths("", v, written)
	}
	for p := range written {
		if (strings.HasPrefix(p, "missed.") || strings.HasPrefix(p, "stop.missed")) && !documented[p] {
			t.Errorf("docs/TRACE.md does not document %s", p)
		}
	}

	proto, err := os.ReadFile(filepath.Join(root, "docs", "PROTOCOL.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(proto), "\n## 14. ")
	if !ok {
		t.Fatalf("docs/PROTOCOL.md has no section 14")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, snippet, ok := strings.Cut(sec, "<!-- trace: lifecycle-gone -->\n```text\n")
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
	proto, err := os.ReadFile(filepath.Join(root, "docs", "PROTOCOL.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(proto), "\n<!-- gap: real.jsonl -->\n")
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
	data, err := os.ReadFile(filepath.Join("testdata", "gap", "real.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		recorded[l] = true
	}
	missed := 0
	for _, l := range block {
		if !recorded[l] {
			t.Errorf("not a line of testdata/gap/real.jsonl: %s", l)
		}
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
