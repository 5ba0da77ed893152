package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// pbField is the number of the field at path (JSON names) in kind's
// message, from the schema.
func pbField(t *testing.T, kind string, path ...string) int {
	t.Helper()
	m, _ := protowire.Root(kind)
	var num int32
	for _, name := range path {
		var ok bool
		if num, m, ok = m.Field(name); !ok {
			t.Fatalf("%s has no field %v", kind, path)
		}
	}
	return int(num)
}

// pbPod is a Pod message bound to node1.
func pbPod(t *testing.T, name, rv string) []byte {
	var md []byte
	md = protoenc.AppendBytesField(md, pbField(t, "Pod", "metadata", "name"), []byte(name))
	md = protoenc.AppendBytesField(md, pbField(t, "Pod", "metadata", "namespace"), []byte("shop"))
	md = protoenc.AppendBytesField(md, pbField(t, "Pod", "metadata", "resourceVersion"), []byte(rv))
	spec := protoenc.AppendBytesField(nil, pbField(t, "Pod", "spec", "nodeName"), []byte(node1))
	return append(protoenc.AppendBytesField(nil, pbField(t, "Pod", "metadata"), md), protoenc.AppendBytesField(nil, pbField(t, "Pod", "spec"), spec)...)
}

// protobufAPI answers a list of one pod of node1, then a watch of one
// ADDED frame that stays open, all in protobuf.
type protobufAPI struct {
	srv       *httptest.Server
	list, raw []byte // the list's envelope, and the PodList in it
	frame     []byte // the watch's one frame
}

func startProtobufAPI(t *testing.T) *protobufAPI {
	lm := protoenc.AppendBytesField(nil, pbField(t, "PodList", "metadata", "resourceVersion"), []byte("10"))
	a := &protobufAPI{}
	a.raw = append(protoenc.AppendBytesField(nil, pbField(t, "PodList", "metadata"), lm),
		protoenc.AppendBytesField(nil, pbField(t, "PodList", "items"), pbPod(t, "a", "9"))...)
	a.list = protoenc.AppendEnvelope(nil, "v1", "PodList", a.raw)
	a.frame = protoenc.AppendWatchFrame(nil, "ADDED", protoenc.AppendEnvelope(nil, "v1", "Pod", pbPod(t, "b", "11")))
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", wire.ContentTypeProtobuf)
			w.Write(a.list)
			return
		}
		w.Header().Set("Content-Type", wire.ContentTypeProtobuf+";stream=watch")
		w.Write(a.frame)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// TestVerboseProtobuf runs a protobuf watch at -v 9 against a server
// answering in protobuf: the curl line shows the Accept header sent, and
// each body is a hex dump under a line saying what it begins with (the
// list's envelope and item count, the watch's first frame), never raw
// binary.
func TestVerboseProtobuf(t *testing.T) {
	clitest.Isolate(t)
	a := startProtobufAPI(t)
	list, raw, frame := a.list, a.raw, a.frame
	r := mustRun(t, "watch", "--server", a.srv.URL, "--node", node1, "--content-type", "protobuf", "--watch-list=false", "--max-events", "1", "-v", "9")
	for _, want := range []string{
		"curl -v -XGET -H 'Accept: " + wire.ContentTypeProtobuf + "'",
		fmt.Sprintf(`(%s, %d bytes shown in hex): envelope k8s\x00 v1 PodList, contentEncoding "", contentType "", object %d bytes, 1 item`,
			wire.ContentTypeProtobuf, len(list), len(raw)),
		fmt.Sprintf(`(%s;stream=watch, %d bytes shown in hex): first frame: length prefix 00 00 00 %02x = %d bytes of WatchEvent ADDED; envelope k8s\x00 v1 Pod,`,
			wire.ContentTypeProtobuf, len(frame), len(frame)-4, len(frame)-4),
		"    00000000  6b 38 73 00 ", // the list's magic, k8s\x00, in the dump
		"|k8s.",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-v 9 does not show %q:\n%s", want, r.stderr)
		}
	}
	if strings.ContainsRune(r.stderr, 0) {
		t.Errorf("-v 9 printed raw binary:\n%q", r.stderr)
	}
}

// TestTraceProtobuf runs podwatch watch --content-type protobuf with the
// trace in JSON lines: each event carries its frame's prefix and envelope,
// the list's end its envelope, and the summary the watch bytes per event.
func TestTraceProtobuf(t *testing.T) {
	clitest.Isolate(t)
	a := startProtobufAPI(t)
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	mustRun(t, "watch", "--server", a.srv.URL, "--node", node1, "--content-type", "protobuf", "--watch-list=false", "--max-events", "1",
		"--trace-file", file, "--trace-format", "json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var event, list, stop map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s map[string]any
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("not JSON: %v: %s", err, line)
		}
		switch s["kind"] {
		case "event":
			event = s["event"].(map[string]any)
		case "body-end":
			if e, ok := s["body-end"].(map[string]any)["envelope"]; ok {
				list = e.(map[string]any)
			}
		case "stop":
			stop = s["stop"].(map[string]any)
		}
	}
	prefix := fmt.Sprintf("%08x", len(a.frame)-4)
	if event == nil || event["prefix"] == nil || event["prefix"].(map[string]any)["hex"] != prefix || event["envelope"] == nil {
		t.Errorf("the event: got %v, want its frame, prefix %s, and envelope", event, prefix)
	}
	if list == nil || list["kind"] != "PodList" || list["items"] != 1.0 || list["objectBytes"] != float64(len(a.raw)) {
		t.Errorf("the list's envelope: got %v, want a PodList of 1 item, %d bytes", list, len(a.raw))
	}
	if stop == nil || stop["watchBytes"] != float64(len(a.frame)) || stop["bytesPerEvent"] != float64(len(a.frame)) {
		t.Errorf("the summary: got %v, want %d watch bytes and as many per event", stop, len(a.frame))
	}
}
