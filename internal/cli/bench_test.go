package cli

import (
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/podwatch/podwatch/internal/benchserver"
	"github.com/podwatch/podwatch/internal/cborenc"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/benchcmd"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/protoenc"
)

func benchLine(t *testing.T, out string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), into); err != nil {
		t.Fatalf("output %q is not one JSON line: %v", out, err)
	}
}

// bench sync runs the reflector and undelta store to the last event, in both
// list modes and each content type, and counts one push per change plus the
// initial state; the server answers each in the form asked for.
func TestBenchSync(t *testing.T) {
	clitest.Isolate(t)
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := benchserver.NewPods(tmpl, 20, "node-1", benchserver.PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	answered := map[string]bool{} // the media types of the answers
	bs := &benchserver.Server{Pods: pods, M: 50}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bs.ServeHTTP(&mediaWriter{ResponseWriter: w, seen: func(media string) {
			mt, _, _ := mime.ParseMediaType(media)
			mu.Lock()
			answered[strings.TrimSuffix(mt, "-seq")] = true // a CBOR watch is a sequence
			mu.Unlock()
		}}, r)
	}))
	defer hs.Close()
	for _, ct := range []struct{ flag, media string }{
		{"json", "application/json"}, {"protobuf", "application/vnd.kubernetes.protobuf"}, {"cbor", "application/cbor"},
	} {
		for _, wl := range []string{"--watch-list=true", "--watch-list=false"} {
			mu.Lock()
			clear(answered)
			mu.Unlock()
			r := mustRun(t, "bench", "sync", "--server", hs.URL, "--node", "node-1", "--until-rv", "70", "--chunk-size", "7", wl,
				"--content-type", ct.flag)
			var got benchcmd.SyncResult
			benchLine(t, r.stdout, &got)
			if got.Pushes != 51 || got.SyncS <= 0 || got.TotalS < got.SyncS || got.Mallocs == 0 {
				t.Fatalf("%s %s: %+v, want 51 pushes (the initial state and 50 events) and sane times", ct.flag, wl, got)
			}
			mu.Lock()
			if !answered[ct.media] {
				t.Errorf("%s %s: answers were %v, none %s", ct.flag, wl, answered, ct.media)
			}
			mu.Unlock()
		}
	}
	if r := run(t, "bench", "sync", "--server", hs.URL, "--until-rv", "70", "--content-type", "yaml"); r.code != base.ExitUsage {
		t.Fatalf("--content-type yaml: exit %d, want a usage error", r.code)
	}
	r := run(t, "bench", "sync", "--server", hs.URL, "--until-rv", "soon")
	if r.code != base.ExitUsage {
		t.Fatalf("--until-rv soon: exit %d, want a usage error", r.code)
	}
}

// mediaWriter tells seen the Content-Type of the answer as its header goes
// out (a watch's handler returns only once the watch ends).
type mediaWriter struct {
	http.ResponseWriter
	seen func(string)
	told bool
}

func (m *mediaWriter) WriteHeader(code int) {
	if !m.told {
		m.told = true
		m.seen(m.Header().Get("Content-Type"))
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *mediaWriter) Write(b []byte) (int, error) {
	if !m.told {
		m.WriteHeader(http.StatusOK)
	}
	return m.ResponseWriter.Write(b)
}

func (m *mediaWriter) Flush() { m.ResponseWriter.(http.Flusher).Flush() }

// bench decode decodes every event of a stream file the synthetic server's
// watch would send, and fails on a truncated one.
func TestBenchDecode(t *testing.T) {
	clitest.Isolate(t)
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	pods, err := benchserver.NewPods(tmpl, 3, "node-1", benchserver.PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var events []byte
	for k := 0; k < 40; k++ {
		events = pods.Event(events, "MODIFIED", pods.EventPod(k), pods.EventRV(k))
	}
	stream := filepath.Join(t.TempDir(), "stream.json")
	if err := os.WriteFile(stream, events, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "bench", "decode", "--stream", stream, "--repeat", "2")
	var got benchcmd.DecodeResult
	benchLine(t, r.stdout, &got)
	if got.Events != 40 || got.EventsPerS <= 0 || got.AllocsPerEvent <= 0 || got.BytesPerEvent <= 0 {
		t.Fatalf("decode: %+v, want 40 events and positive figures", got)
	}
	os.WriteFile(stream, []byte("{\"type\":\"ADDED\",\"object\":{\n"), 0o644)
	if r := run(t, "bench", "decode", "--stream", stream); r.code != base.ExitError {
		t.Fatalf("a truncated stream: exit %d, want %d", r.code, base.ExitError)
	}
}

// bench decode --content-type protobuf decodes a stream of length-prefixed
// frames, as the server sends a protobuf watch, and cbor a sequence of CBOR
// items; each fails on a truncated stream.
func TestBenchDecodeProtobuf(t *testing.T) {
	clitest.Isolate(t)
	pod, err := os.ReadFile("../../rest/protowire/testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	var frames []byte
	for range 30 {
		frames = protoenc.AppendWatchFrame(frames, "MODIFIED", pod)
	}
	testBenchDecodeBinary(t, "protobuf", frames)
}

func TestBenchDecodeCBOR(t *testing.T) {
	clitest.Isolate(t)
	pod, err := os.ReadFile("../../rest/cborwire/testdata/pod.cbor")
	if err != nil {
		t.Fatal(err)
	}
	var items []byte
	for range 30 {
		items = cborenc.AppendEvent(items, "MODIFIED", pod)
	}
	testBenchDecodeBinary(t, "cbor", items)
}

// testBenchDecodeBinary runs bench decode on 30 events in format.
func testBenchDecodeBinary(t *testing.T, format string, frames []byte) {
	stream := filepath.Join(t.TempDir(), "stream."+format)
	if err := os.WriteFile(stream, frames, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "bench", "decode", "--stream", stream, "--repeat", "2", "--content-type", format)
	var got benchcmd.DecodeResult
	benchLine(t, r.stdout, &got)
	if got.Events != 30 || got.EventsPerS <= 0 || got.AllocsPerEvent <= 0 || got.BytesPerEvent <= 0 {
		t.Fatalf("decode: %+v, want 30 events and positive figures", got)
	}
	// The same file read as JSON is no JSON stream.
	if r := run(t, "bench", "decode", "--stream", stream); r.code != base.ExitError {
		t.Fatalf("a %s stream read as json: exit %d, want %d", format, r.code, base.ExitError)
	}
	os.WriteFile(stream, frames[:len(frames)-10], 0o644)
	if r := run(t, "bench", "decode", "--stream", stream, "--content-type", format); r.code != base.ExitError {
		t.Fatalf("a truncated stream: exit %d, want %d", r.code, base.ExitError)
	}
	if r := run(t, "bench", "decode", "--stream", stream, "--content-type", "yaml"); r.code != base.ExitUsage {
		t.Fatalf("--content-type yaml: exit %d, want a usage error", r.code)
	}
}
