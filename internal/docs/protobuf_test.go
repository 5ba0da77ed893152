package docs

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
)

// The protobuf section of docs/PROTOCOL.md is told from bodies recorded from
// the real apiserver by internal/e2e's TestProtobufTrace
// (-update-protocol-wire), kept byte for byte under testdata/protobuf with
// what was asked for each in meta.json. Its snippets are checked against
// those bytes:
//
//	<!-- hex: protobuf/FILE -->
//	```text
//	00000488  00 00 00 90 0a 08 42 4f  |......BO|  anything after the dump is a note
//	…
//	```
//
// Each line of a hex snippet is an offset into FILE (hex), the bytes found
// there, and between bars those bytes as text (printable ASCII, others as
// a dot); a line that is only "…" stands for bytes left out.
//
//	<!-- recorded: protobuf/FILE -->
//	```text
//	GET /api/v1/...
//	Status: 200
//	Content-Type: application/vnd.kubernetes.protobuf;stream=watch
//	```
//
//	<!-- frames: protobuf/FILE -->   lines of podwatch's text trace of FILE served as recorded
var protobufMarkerRE = regexp.MustCompile(`^<!-- (hex|recorded|frames): protobuf/([a-z-]+\.bin) -->$`)

var protobufDir = filepath.Join("testdata", "protobuf")

func checkProtobuf(t *testing.T, s snippet) {
	t.Helper()
	checkRecordedWire(t, protobufDir, wire.ContentTypeProtobuf, s)
}

// checkRecordedWire checks a hex, recorded or frames snippet against the
// body s names under dir, recorded from the real apiserver by a client
// asking for contentType.
func checkRecordedWire(t *testing.T, dir, contentType string, s snippet) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, s.fixture))
	if err != nil {
		t.Fatal(err)
	}
	switch s.source {
	case "recorded":
		if err := checkRecordedIn(dir, s.fixture, s.text); err != nil {
			t.Fatalf("%v\nsnippet:\n%s", err, s.text)
		}
		return
	case "frames":
		tr := traceRecordedIn(t, dir, contentType, s.fixture, data)
		have := map[string]bool{}
		for _, l := range strings.Split(tr, "\n") {
			have[l] = true
		}
		for _, l := range strings.Split(s.text, "\n") {
			if !have[l] {
				t.Errorf("not a line of the trace of %s: %q\nthe trace:\n%s", s.fixture, l, tr)
			}
		}
		return
	}
	for _, line := range strings.Split(s.text, "\n") {
		if strings.TrimSpace(line) == "…" {
			continue
		}
		if err := checkDumpLine(data, line); err != nil {
			t.Errorf("%v: %q", err, line)
		}
	}
}

// checkDumpLine checks one line of a hex snippet against data.
func checkDumpLine(data []byte, line string) error {
	offText, rest, ok := strings.Cut(line, "  ")
	if !ok {
		return fmt.Errorf("not OFFSET  BYTES  |TEXT|")
	}
	off, err := strconv.ParseInt(offText, 16, 64)
	if err != nil {
		return fmt.Errorf("offset: %v", err)
	}
	hexPart, text, ok := strings.Cut(rest, "|")
	if !ok {
		return fmt.Errorf("no |TEXT| after the bytes")
	}
	want, err := hex.DecodeString(strings.Join(strings.Fields(hexPart), ""))
	if err != nil || len(want) == 0 {
		return fmt.Errorf("bytes: %v", err)
	}
	if off+int64(len(want)) > int64(len(data)) {
		return fmt.Errorf("the recording has %d bytes", len(data))
	}
	if got := data[off : off+int64(len(want))]; string(got) != string(want) {
		return fmt.Errorf("the recording holds % x there", got)
	}
	if len(text) <= len(want) || text[len(want)] != '|' || text[:len(want)] != printable(want) {
		return fmt.Errorf("the text of those bytes is |%s|", printable(want))
	}
	return nil
}

// printable is b as a hex dump's text column shows it.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 32 || c > 126 {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

type recordedMeta struct {
	Request     string
	Status      int
	ContentType string
}

// readMetaIn reads what dir/meta.json says of file.
func readMetaIn(dir, file string) (recordedMeta, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return recordedMeta{}, err
	}
	var meta map[string]recordedMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return recordedMeta{}, err
	}
	m, ok := meta[file]
	if !ok {
		return m, fmt.Errorf("meta.json says nothing of %s", file)
	}
	return m, nil
}

// traceRecordedIn serves data, the body file under dir, as it was recorded
// (status, Content-Type) to the request dir/meta.json names, sends that
// request through a traced podwatch client asking for contentType, reads
// the whole answer, and returns the text trace, every time 0.000.
func traceRecordedIn(t *testing.T, dir, contentType, file string, data []byte) string {
	t.Helper()
	m, err := readMetaIn(dir, file)
	if err != nil {
		t.Fatal(err)
	}
	return traceServedAs(t, m, contentType, data)
}

// traceServed serves data as m says it was answered, to m's request sent
// through a traced podwatch client asking for protobuf, and returns the
// text trace, every time 0.000.
func traceServed(t *testing.T, m recordedMeta, data []byte) string {
	t.Helper()
	return traceServedAs(t, m, wire.ContentTypeProtobuf, data)
}

// traceServedAs is traceServed for a client asking for contentType.
func traceServedAs(t *testing.T, m recordedMeta, contentType string, data []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", m.ContentType)
		w.WriteHeader(m.Status)
		w.Write(data)
	}))
	defer srv.Close()
	var out bytes.Buffer
	tr := trace.New(trace.Options{Sinks: []trace.Sink{text.New(&out, text.Options{})}, Clock: func() time.Time { return time.Time{} }})
	cfg := rest.Config{Host: srv.URL, ContentType: contentType}
	trace.NewInstrument[*api.Pod](tr).Configure(&cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(strings.TrimPrefix(m.Request, "GET "))
	if err != nil {
		t.Fatal(err)
	}
	req := client.Get().AbsPath(u.Path)
	for k, vs := range u.Query() {
		for _, v := range vs {
			req.Param(k, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.Stream(ctx)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func checkRecordedIn(dir, file, text string) error {
	m, err := readMetaIn(dir, file)
	if err != nil {
		return err
	}
	have := map[string]bool{m.Request: true, "Status: " + strconv.Itoa(m.Status): true, "Content-Type: " + m.ContentType: true}
	for _, l := range strings.Split(text, "\n") {
		if !have[l] {
			return fmt.Errorf("%q is not what meta.json records: %+v", l, m)
		}
	}
	return nil
}

// TestDumpLineChecker checks the checker: a line that does not match the
// recording, byte or text, is refused.
func TestDumpLineChecker(t *testing.T) {
	data := []byte("\x00\x00\x04\x84\x0a\x05ADDED")
	for line, ok := range map[string]bool{
		"00000000  00 00 04 84 0a 05 41 44  |......AD|":     true,
		"00000004  0a 05 41 44 44 45 44  |..ADDED|  a note": true,
		"00000000  00 00 04 85  |....|":                     false,
		"00000000  00 00 04 84  |...x|":                     false,
		"00000008  44 44 45 44 00  |DDED.|":                 false,
		"0000000g  00  |.|":                                 false,
	} {
		if err := checkDumpLine(data, line); (err == nil) != ok {
			t.Errorf("%q: got %v, want ok=%t", line, err, ok)
		}
	}
}
