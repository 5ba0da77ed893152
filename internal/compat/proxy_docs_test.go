package compat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// proxyDocsDir is where internal/docs keeps the proxy recording that
// docs/PROTOCOL.md's section 12 is told from and checked against.
var proxyDocsDir = filepath.Join(repoRoot, "internal", "docs", "testdata", "proxy")

// writeProxyDocsTestdata keeps mode's client of the run: its recording, as
// internal/docs/testdata/proxy/kubelet-protobuf, and its lines of the
// proxy's JSON trace, as kubelet-protobuf.trace.jsonl. Neither may hold
// the proxy's token.
func writeProxyDocsTestdata(t *testing.T, recDir, traceFile, token string, mode clientMode) {
	t.Helper()
	recs, err := filepath.Glob(filepath.Join(recDir, "*kubelet-path-"+mode.name, "recording.json"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("recordings of %s: %v (%v)", mode.name, recs, err)
	}
	rec, err := os.ReadFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var st struct {
			Client string `json:"client"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		if who, _, _ := strings.Cut(st.Client, " from "); who == "kubelet-path-"+mode.name {
			lines.WriteString(line + "\n")
		}
	}
	if bytes.Contains(rec, []byte(token)) || bytes.Contains(lines.Bytes(), []byte(token)) {
		t.Fatalf("the proxy's token appears in what would be bundled")
	}
	if !mode.protobuf {
		t.Fatalf("section 12 is told from the protobuf client; %s is not", mode.name)
	}
	const name = "kubelet-protobuf"
	dir := filepath.Join(proxyDocsDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recording.json"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proxyDocsDir, name+".trace.jsonl"), lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s and its trace lines", dir)
}
