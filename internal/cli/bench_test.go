package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/podwatch/podwatch/internal/benchserver"
)

func benchLine(t *testing.T, out string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), into); err != nil {
		t.Fatalf("output %q is not one JSON line: %v", out, err)
	}
}

// bench sync runs the reflector and undelta store to the last event, in both
// list modes, and counts one push per change plus the initial state.
func TestBenchSync(t *testing.T) {
	isolate(t)
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := benchserver.NewPods(tmpl, 20, "node-1", benchserver.PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(&benchserver.Server{Pods: pods, M: 50})
	defer hs.Close()
	for _, wl := range []string{"--watch-list=true", "--watch-list=false"} {
		r := mustRun(t, "bench", "sync", "--server", hs.URL, "--node", "node-1", "--until-rv", "70", "--chunk-size", "7", wl)
		var got syncResult
		benchLine(t, r.stdout, &got)
		if got.Pushes != 51 || got.SyncS <= 0 || got.TotalS < got.SyncS || got.Mallocs == 0 {
			t.Fatalf("%s: %+v, want 51 pushes (the initial state and 50 events) and sane times", wl, got)
		}
	}
	r := run(t, "bench", "sync", "--server", hs.URL, "--until-rv", "soon")
	if r.code != exitUsage {
		t.Fatalf("--until-rv soon: exit %d, want a usage error", r.code)
	}
}

// bench stream writes the events bench decode then decodes, every one.
func TestBenchStreamAndDecode(t *testing.T) {
	isolate(t)
	stream := filepath.Join(t.TempDir(), "stream.json")
	r := mustRun(t, "bench", "stream", "--pod", "../../testdata/pod.json", "--pods", "3", "--events", "40", "--out", stream)
	var wrote struct {
		Events int   `json:"events"`
		LastRV int64 `json:"last_rv"`
	}
	benchLine(t, r.stdout, &wrote)
	if wrote.Events != 40 || wrote.LastRV != 43 {
		t.Fatalf("stream: %+v, want 40 events up to resourceVersion 43", wrote)
	}
	r = mustRun(t, "bench", "decode", "--stream", stream, "--repeat", "2")
	var got decodeResult
	benchLine(t, r.stdout, &got)
	if got.Events != 40 || got.EventsPerS <= 0 || got.AllocsPerEvent <= 0 || got.BytesPerEvent <= 0 {
		t.Fatalf("decode: %+v, want 40 events and positive figures", got)
	}
	os.WriteFile(stream, []byte("{\"type\":\"ADDED\",\"object\":{\n"), 0o644)
	if r := run(t, "bench", "decode", "--stream", stream); r.code != exitError {
		t.Fatalf("a truncated stream: exit %d, want %d", r.code, exitError)
	}
}
