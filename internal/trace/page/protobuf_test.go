package page

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

// TestProtobufTextAndPage sends one protobuf watch, whose second frame is
// malformed, and one refused protobuf request through the Transport: the
// text trace shows each frame's prefix and envelope, the bad frame with its
// error, the refusal's Status read from its envelope, and the summary's
// bytes per event; the page names each answer's format.
func TestProtobufTextAndPage(t *testing.T) {
	good := tracetest.PBFrame("ADDED", "Pod", tracetest.PBPod(t, "web-1", "215", false, nil))
	bad := bytes.Replace(bytes.Clone(good), protowire.Magic, []byte("k9s\x00"), 1)
	body := append(bytes.Clone(good), bad...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", wire.ContentTypeProtobuf)
			w.WriteHeader(http.StatusForbidden)
			w.Write(protoenc.AppendEnvelope(nil, "v1", "Status", tracetest.PBStatus(t, 403, "Forbidden", "pods is forbidden")))
			return
		}
		w.Header().Set("Content-Type", wire.ContentTypeProtobuf+";stream=watch")
		w.Write(body)
	}))
	defer srv.Close()
	var txt, html bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{text.New(&txt, text.Options{}), New(&html, Run{})}})
	rt := tracetest.Transport(trace.NewInstrument[*tracetest.Pod](tr).Configure)
	for _, q := range []string{"?watch=true", ""} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/v1/pods"+q, nil)
		req.Header.Set("Accept", wire.ContentTypeProtobuf)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got := txt.String()
	for _, want := range []string{
		fmt.Sprintf("frame: length prefix %s = %d bytes of WatchEvent ADDED; envelope k8s\\x00 v1 Pod, contentEncoding \"\", contentType \"\", object %d bytes",
			spaced(good[:4]), len(good)-4, len(tracetest.PBPod(t, "web-1", "215", false, nil))),
		fmt.Sprintf("#1 bad frame  %d bytes at %d (length prefix %s): protobuf: envelope at byte", len(bad), len(good), spaced(bad[:4])),
		"Status 403 Forbidden: pods is forbidden",
		"(watch): a watch, asked for in protobuf:",
		fmt.Sprintf("1 event, 0 pushes, 0 relists, 0 backoffs; watch bodies %d bytes, %d.0 bytes per event", len(body), len(body)),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the text trace does not say %q:\n%s", want, got)
		}
	}
	formats := map[string]bool{}
	for _, l := range pageModelOf(t, html.String()).Lanes {
		if l.Kind == laneReq {
			formats[l.Sub] = true
		}
	}
	for _, want := range []string{"k8s protobuf;stream=watch", "k8s protobuf"} {
		if !formats[want] {
			t.Errorf("no request's bar is labelled with the format %q: %v", want, formats)
		}
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
