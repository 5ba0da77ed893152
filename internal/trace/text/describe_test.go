package text

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// TestDescribeProtobuf checks what the -v 8 log says of a protobuf body's
// first bytes, however much of it they hold.
func TestDescribeProtobuf(t *testing.T) {
	frame := tracetest.PBFrame("ADDED", "Pod", tracetest.PBPod(t, "web-1", "215", false, nil))
	list := tracetest.PBList(t, "10", tracetest.PBPod(t, "a", "9", false, nil), tracetest.PBPod(t, "b", "9", false, nil))
	watch := wire.ContentTypeProtobufWatch
	tests := []struct {
		name, contentType string
		head              []byte
		complete          bool
		want              string
	}{
		{"a whole frame", watch, frame, false, fmt.Sprintf("first frame: length prefix %s = %d bytes of WatchEvent ADDED; envelope k8s\\x00 v1 Pod,", spaced(frame[:4]), len(frame)-4)},
		{"a frame cut short", watch, frame[:10], false, fmt.Sprintf("first frame: length prefix %s = %d bytes of WatchEvent, more than shown", spaced(frame[:4]), len(frame)-4)},
		{"a bad frame", watch, bytes.Replace(bytes.Clone(frame), protowire.Magic, []byte("k9s\x00"), 1), false, "protobuf: envelope at byte"},
		{"less than a prefix", watch, frame[:3], false, ""},
		{"a whole list", wire.ContentTypeProtobuf, list, true, "envelope k8s\\x00 v1 PodList, contentEncoding \"\", contentType \"\", object"},
		{"a list's count", wire.ContentTypeProtobuf, list, true, ", 2 items"},
		{"a list cut short", wire.ContentTypeProtobuf, list[:20], false, "envelope k8s\\x00, its object going on past what is shown"},
		{"not an envelope", wire.ContentTypeProtobuf, []byte("{\"kind\":"), true, "starts with \"{\\\"ki\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DescribeBody(tt.head, tt.contentType, tt.complete)
			if !strings.Contains(got, tt.want) || (tt.want == "") != (got == "") {
				t.Fatalf("got %q, want it to say %q", got, tt.want)
			}
		})
	}
}

// spaced is b in hex, a space between bytes.
func spaced(b []byte) string {
	var parts []string
	for _, c := range b {
		parts = append(parts, fmt.Sprintf("%02x", c))
	}
	return strings.Join(parts, " ")
}
