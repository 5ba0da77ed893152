package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/protowire"
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
	md = protowire.AppendBytesField(md, pbField(t, "Pod", "metadata", "name"), []byte(name))
	md = protowire.AppendBytesField(md, pbField(t, "Pod", "metadata", "namespace"), []byte("shop"))
	md = protowire.AppendBytesField(md, pbField(t, "Pod", "metadata", "resourceVersion"), []byte(rv))
	spec := protowire.AppendBytesField(nil, pbField(t, "Pod", "spec", "nodeName"), []byte(node1))
	return append(protowire.AppendBytesField(nil, pbField(t, "Pod", "metadata"), md), protowire.AppendBytesField(nil, pbField(t, "Pod", "spec"), spec)...)
}

// TestVerboseProtobuf runs a protobuf watch at -v 9 against a server
// answering in protobuf: the curl line shows the Accept header sent, and
// each body is a hex dump under a line saying what it begins with (the
// list's envelope and item count, the watch's first frame), never raw
// binary.
func TestVerboseProtobuf(t *testing.T) {
	isolate(t)
	lm := protowire.AppendBytesField(nil, pbField(t, "PodList", "metadata", "resourceVersion"), []byte("10"))
	raw := append(protowire.AppendBytesField(nil, pbField(t, "PodList", "metadata"), lm),
		protowire.AppendBytesField(nil, pbField(t, "PodList", "items"), pbPod(t, "a", "9"))...)
	list := protowire.AppendEnvelope(nil, "v1", "PodList", raw)
	frame := protowire.AppendWatchFrame(nil, "ADDED", protowire.AppendEnvelope(nil, "v1", "Pod", pbPod(t, "b", "11")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", rest.ContentTypeProtobuf)
			w.Write(list)
			return
		}
		w.Header().Set("Content-Type", rest.ContentTypeProtobuf+";stream=watch")
		w.Write(frame)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	r := mustRun(t, "watch", "--server", srv.URL, "--node", node1, "--content-type", "protobuf", "--watch-list=false", "--max-events", "1", "-v", "9")
	for _, want := range []string{
		"curl -v -XGET -H 'Accept: " + rest.ContentTypeProtobuf + "'",
		fmt.Sprintf(`(%s, %d bytes shown in hex): envelope k8s\x00 v1 PodList, contentEncoding "", contentType "", object %d bytes, 1 item`,
			rest.ContentTypeProtobuf, len(list), len(raw)),
		fmt.Sprintf(`(%s;stream=watch, %d bytes shown in hex): first frame: length prefix 00 00 00 %02x = %d bytes of WatchEvent ADDED; envelope k8s\x00 v1 Pod,`,
			rest.ContentTypeProtobuf, len(frame), len(frame)-4, len(frame)-4),
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
