package h2tap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http2"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest"
)

// clientFrames is what a client writes: the preface, then frames. Writing
// to a bytes.Buffer cannot fail, so a failure is a broken test.
func clientFrames() []byte {
	var b bytes.Buffer
	b.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&b, nil)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 4 << 20}))
	must(fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte("secret-hpack"), EndStream: true, EndHeaders: true}))
	must(fr.WriteData(1, false, []byte(strings.Repeat("x", 100))))
	must(fr.WriteData(1, true, nil))
	must(fr.WriteWindowUpdate(0, 1000))
	must(fr.WritePing(true, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}))
	must(fr.WriteRSTStream(3, http2.ErrCodeCancel))
	must(fr.WriteGoAway(5, http2.ErrCodeNo, []byte("bye\x1b[2J")))
	return b.Bytes()
}

var wantFrames = []trace.Frame{
	{Type: "SETTINGS", Length: 6, Detail: "INITIAL_WINDOW_SIZE=4194304"},
	{Type: "HEADERS", Stream: 1, Length: 12, Flags: "END_STREAM|END_HEADERS", Detail: "the request's header block, 12 bytes of HPACK, not decoded: it holds the Authorization header"},
	{Type: "DATA", Stream: 1, Length: 100},
	{Type: "DATA", Stream: 1, Flags: "END_STREAM"},
	{Type: "WINDOW_UPDATE", Length: 4, Detail: "increment=1000"},
	{Type: "PING", Length: 8, Flags: "ACK", Detail: "data=0102030405060708"},
	{Type: "RST_STREAM", Stream: 3, Length: 4, Detail: "code=CANCEL"},
	{Type: "GOAWAY", Length: 15, Detail: `last-stream=5 code=NO_ERROR debug="bye\x1b[2J"`},
}

// TestFrameScanner feeds a client's bytes cut at every point: the frames
// found, told from x/net's Framer, never depend on the cut, and header
// blocks are never shown.
func TestFrameScanner(t *testing.T) {
	data := clientFrames()
	for cut := 0; cut <= len(data); cut++ {
		s := frameScanner{sent: true, preface: len(http2.ClientPreface)}
		var got []trace.Frame
		emit := func(f trace.Frame) { got = append(got, f) }
		s.feed(data[:cut], emit)
		s.feed(data[cut:], emit)
		if diff := cmp.Diff(wantFrames, got); diff != "" {
			t.Fatalf("cut at %d (-want +got):\n%s", cut, diff)
		}
	}
}

// TestHTTP2Tap lists through a rest.Client whose transport the trace taps,
// against an HTTP/2 server: the request goes over HTTP/2, and the frames
// both ways are traced, the request's own ones numbered with it.
func TestTap(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"PodList","metadata":{"resourceVersion":"7"},"items":[]}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	var out bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(&out)}, Tap: New()})
	cfg := rest.Config{Host: srv.URL, BearerToken: "t0ken-not-to-show"}
	trace.NewInstrument[*tracetest.Pod](tr).Configure(&cfg)
	cfg.TLS.CAData = certPEM(srv.Certificate().Raw)
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second request reuses the tapped connection
		if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
	}
	// A connection the server closes is replaced, and the new one tapped.
	// The first request after the close may still go out on the old one,
	// before the client has read the close, and fail there: x/net's pool
	// does not send it again, traced or not. By the time it has failed the
	// client knows, and the next goes over a new connection.
	srv.CloseClientConnections()
	after := 3 // the trace's number of the first request over the new connection
	if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
		t.Logf("the first list after the close failed (%v): it went over the closed connection", err)
		after++
		if _, err := c.Get().Resource("pods").Do(context.Background()); err != nil {
			t.Fatalf("list after the connection closed: %v", err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`"kind":"conn"`,
		`"proto":"HTTP/2.0"`,
		`"req":1,"frame":{"conn":1,"dir":"sent","type":"HEADERS","stream":1`,
		`"req":1,"frame":{"conn":1,"dir":"recv","type":"DATA","stream":1`,
		`"req":2,"frame":{"conn":1,"dir":"sent","type":"HEADERS","stream":3`,
		`"frame":{"conn":1,"dir":"recv","type":"SETTINGS","stream":0`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the trace has no %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"kind":"conn"`); n != 2 {
		t.Errorf("%d tapped connections, want 2: one for the first two requests, one after the close:\n%s", n, got)
	}
	if !strings.Contains(got, fmt.Sprintf(`"req":%d,"frame":{"conn":2,"dir":"sent","type":"HEADERS","stream":1`, after)) {
		t.Errorf("request %d did not go over a second connection:\n%s", after, got)
	}
	if strings.Contains(got, "t0ken-not-to-show") {
		t.Fatalf("the trace holds the token:\n%s", got)
	}
	checkStreamsOpenFirst(t, got)
}

// checkStreamsOpenFirst fails when a frame the server sent on a stream is
// told before the HEADERS the client opened that stream with.
func checkStreamsOpenFirst(t *testing.T, trace string) {
	t.Helper()
	type stream struct{ conn, id int }
	opened := map[stream]bool{}
	for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		var step struct {
			Frame *struct {
				Conn, Stream int
				Dir, Type    string
			}
		}
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		f := step.Frame
		if f == nil || f.Stream == 0 {
			continue
		}
		s := stream{f.Conn, f.Stream}
		if f.Dir == "sent" && f.Type == "HEADERS" {
			opened[s] = true
		} else if f.Dir == "recv" && !opened[s] {
			t.Errorf("a %s frame received on conn %d stream %d is told before the stream was opened:\n%s", f.Type, f.Conn, f.Stream, trace)
		}
	}
}

// TestTapSeesPings: a traced client's quiet watch is pinged by the
// same HTTP/2 transport as an untraced one's (HTTP2ReadIdleTimeout), and
// the tap tells the PING and its ACK on the watch's connection.
func TestTapSeesPings(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // a watch on which nothing happens
		case <-release:
		case <-r.Context().Done():
		}
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	defer close(release)
	out := &tracetest.Buffer{}
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(out)}, Tap: New()})
	cfg := rest.Config{Host: srv.URL, HTTP2ReadIdleTimeout: 100 * time.Millisecond, HTTP2PingTimeout: 10 * time.Second}
	trace.NewInstrument[*tracetest.Pod](tr).Configure(&cfg)
	cfg.TLS.CAData = certPEM(srv.Certificate().Raw)
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.Get().Resource("pods").Watch(true).Stream(ctx)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer resp.Body.Close()
	const sent, acked = `"frame":{"conn":1,"dir":"sent","type":"PING","stream":0,"length":8,"detail"`,
		`"frame":{"conn":1,"dir":"recv","type":"PING","stream":0,"flags":"ACK","length":8,"detail"`
	deadline := time.After(30 * time.Second)
	for got := out.String(); !strings.Contains(got, sent) || !strings.Contains(got, acked); got = out.String() {
		select {
		case <-deadline:
			t.Fatalf("no PING and ACK traced within 30s of a quiet watch:\n%s", got)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestTapLeavesHTTP1Alone checks that a transport limited to HTTP/1.1
// is not switched to HTTP/2 by the tap.
func TestTapLeavesHTTP1Alone(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr := trace.New(trace.Options{Tap: New()})
	cfg := rest.Config{Host: srv.URL, DisableHTTP2: true}
	trace.NewInstrument[*tracetest.Pod](tr).Configure(&cfg)
	cfg.TLS.CAData = certPEM(srv.Certificate().Raw)
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Get().Resource("pods").Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "HTTP/1.1" {
		t.Fatalf("got %s, want HTTP/1.1", b)
	}
}

// FuzzFrameScanner checks that any bytes, cut anywhere, are scanned without
// a panic and into the same frames whatever the cut.
func FuzzFrameScanner(f *testing.F) {
	f.Add(clientFrames()[len(http2.ClientPreface):], 9)
	f.Add([]byte{0, 0, 1, 4, 0, 0, 0, 0, 0, 9}, 4) // a SETTINGS frame whose length is not a multiple of 6
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		var whole, split frameScanner
		var a, b []trace.Frame
		whole.feed(data, func(fr trace.Frame) { a = append(a, fr) })
		split.feed(data[:cut], func(fr trace.Frame) { b = append(b, fr) })
		split.feed(data[cut:], func(fr trace.Frame) { b = append(b, fr) })
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("scanned differently when cut at %d (-whole +cut):\n%s", cut, diff)
		}
	})
}
