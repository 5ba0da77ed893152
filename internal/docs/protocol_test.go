package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/fixture"
)

const root = "../.."

// readDoc is the text of docs/NAME.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// protocolSection is the text of docs/PROTOCOL.md's numbered section n,
// after its heading's number, to the next section.
func protocolSection(t *testing.T, n int) string {
	t.Helper()
	_, sec, ok := strings.Cut(readDoc(t, "PROTOCOL.md"), fmt.Sprintf("\n## %d. ", n))
	if !ok {
		t.Fatalf("docs/PROTOCOL.md has no section %d", n)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// A snippet is a fenced block of docs/PROTOCOL.md right after a marker that
// says where it comes from:
//
//	<!-- wire: FIXTURE #N request|response|body|chunks -->  exchange N of testdata/fixtures/FIXTURE
//	<!-- trace: FIXTURE -->   lines of podwatch's trace of it (internal/cli/testdata/trace-FIXTURE.text.golden)
//	<!-- updates: FIXTURE --> lines of the pod updates it prints (trace-FIXTURE.stdout.golden)
//	<!-- hex: protobuf/FILE -->       lines of a hex dump of FILE, a protobuf body recorded from the real apiserver (see protobuf_test.go)
//	<!-- recorded: protobuf/FILE -->  the request FILE answers, its status and Content-Type
//	<!-- proxy: NAME #N request|response|frames -->, <!-- proxy-trace: NAME -->  a proxy recording and trace (see proxy_test.go)
//	<!-- hex|recorded|frames: cbor/FILE -->  the same for a CBOR body (see cbor_test.go)
//	<!-- stall: FIXTURE #N after DURATION -->  the stall lines of exchange N at that threshold (see stall_test.go)
//
// Only ```console blocks (commands to type) need no marker.
type snippet struct {
	line    int // of the marker, for messages
	source  string
	fixture string
	n       int
	part    string
	text    string
}

var (
	markerRE = regexp.MustCompile(`^<!-- (wire|trace|updates): ([a-z0-9-]+)(?: #(\d+) (request|response|body|chunks))? -->$`)
	chunkRE  = regexp.MustCompile(`^\+([0-9.]+) ms +(\d+) bytes(?: +(.+))?$`)
)

// parseSnippets finds every fenced block of doc and the marker before it.
func parseSnippets(t *testing.T, doc string) []snippet {
	t.Helper()
	lines := strings.Split(doc, "\n")
	var out []snippet
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		info := strings.TrimPrefix(lines[i], "```")
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if end == len(lines) {
			t.Fatalf("line %d: a fenced block that never closes", i+1)
		}
		body := strings.Join(lines[i+1:end], "\n")
		marker := ""
		if i > 0 {
			marker = lines[i-1]
		}
		m := markerRE.FindStringSubmatch(marker)
		pb := protobufMarkerRE.FindStringSubmatch(marker)
		px := proxyMarkerRE.FindStringSubmatch(marker)
		cb := cborMarkerRE.FindStringSubmatch(marker)
		st := stallMarkerRE.FindStringSubmatch(marker)
		switch {
		case px != nil:
			n, _ := strconv.Atoi(px[3])
			out = append(out, snippet{line: i, source: px[1], fixture: px[2], n: n, part: px[4], text: body})
		case cb != nil:
			out = append(out, snippet{line: i, source: cborSource + cb[1], fixture: cb[2], text: body})
		case pb != nil:
			out = append(out, snippet{line: i, source: pb[1], fixture: pb[2], text: body})
		case m != nil:
			n, _ := strconv.Atoi(m[3])
			if m[1] == "wire" && n == 0 {
				t.Fatalf("line %d: a wire snippet must name its exchange and part: %s", i, marker)
			}
			out = append(out, snippet{line: i, source: m[1], fixture: m[2], n: n, part: m[4], text: body})
		case info == "console":
		case st != nil:
			n, _ := strconv.Atoi(st[2])
			out = append(out, snippet{line: i, source: "stall", fixture: st[1], n: n, part: st[3], text: body})
		default:
			t.Fatalf("line %d: a fenced block without a snippet marker (see internal/docs): every wire snippet must name its fixture", i+1)
		}
		i = end
	}
	return out
}

// TestProtocolSnippets fails when a snippet of docs/PROTOCOL.md no longer
// matches the fixture it names, so the guide cannot drift from the
// recordings.
func TestProtocolSnippets(t *testing.T) {
	snippets := parseSnippets(t, readDoc(t, "PROTOCOL.md"))
	if len(snippets) < 10 {
		t.Fatalf("only %d snippets found; the marker syntax may have changed", len(snippets))
	}
	recs := map[string]*fixture.Recording{}
	for _, s := range snippets {
		if s.source == "stall" {
			continue // checked by TestStallSnippets
		}
		t.Run(fmt.Sprintf("line %d %s %s #%d %s", s.line, s.source, s.fixture, s.n, s.part), func(t *testing.T) {
			switch s.source {
			case "hex", "recorded", "frames":
				checkProtobuf(t, s)
				return
			case "proxy", "proxy-trace":
				checkProxy(t, s)
				return
			case cborSource + "hex", cborSource + "recorded", cborSource + "frames":
				checkCBOR(t, s)
				return
			case "trace":
				checkLines(t, s.text, filepath.Join(root, "internal", "cli", "testdata", "trace-"+s.fixture+".text.golden"))
				return
			case "updates":
				checkLines(t, s.text, filepath.Join(root, "internal", "cli", "testdata", "trace-"+s.fixture+".stdout.golden"))
				return
			}
			rec := recs[s.fixture]
			if rec == nil {
				var err error
				if rec, err = fixture.Load(filepath.Join(root, "testdata", "fixtures", s.fixture)); err != nil {
					t.Fatal(err)
				}
				recs[s.fixture] = rec
			}
			if s.n > len(rec.Exchanges) {
				t.Fatalf("the fixture has %d exchanges", len(rec.Exchanges))
			}
			if err := checkWire(rec.Exchanges[s.n-1], s.part, s.text); err != nil {
				t.Fatalf("%v\nsnippet:\n%s", err, s.text)
			}
		})
	}
}

// checkLines requires every line of text to be a line of the file.
func checkLines(t *testing.T, text, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[l] = true
	}
	for _, l := range strings.Split(text, "\n") {
		if !have[l] {
			t.Errorf("not a line of %s: %q", path, l)
		}
	}
}

func checkWire(ex fixture.Exchange, part, text string) error {
	switch part {
	case "request":
		return checkRequest(ex.Request, text)
	case "response":
		return checkResponse(ex.Response, text)
	case "body":
		return checkBody(ex.Response, text)
	case "chunks":
		return checkChunks(ex.Response, text)
	}
	return fmt.Errorf("unknown part %q", part)
}

// checkRequest wants "METHOD PATH?QUERY", the query in sorted, encoded form.
func checkRequest(r fixture.Request, text string) error {
	got := r.Method + " " + r.Path
	if len(r.Query) > 0 {
		got += "?" + url.Values(r.Query).Encode()
	}
	if text != got {
		return fmt.Errorf("the recorded request is\n%s", got)
	}
	return nil
}

// checkResponse wants "PROTO STATUS", then recorded headers, one a line,
// and maybe last "(body ended after AT ms)" or "(body ended after AT ms: HOW)".
func checkResponse(r fixture.Response, text string) error {
	lines := strings.Split(text, "\n")
	if want := fmt.Sprintf("%s %d", r.Proto, r.Status); lines[0] != want {
		return fmt.Errorf("the recorded status line is %q", want)
	}
	if last := lines[len(lines)-1]; strings.HasPrefix(last, "(body ended after ") {
		want := "(body ended after " + strconv.FormatFloat(float64(r.End)/1e6, 'f', -1, 64) + " ms"
		if r.EndErr != "" {
			want += ": " + r.EndErr
		}
		if want += ")"; last != want {
			return fmt.Errorf("the recording says %q", want)
		}
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines[1:] {
		name, val, ok := strings.Cut(l, ": ")
		if !ok || r.Headers[name] != val {
			return fmt.Errorf("no recorded header %q (the headers are %v)", l, r.Headers)
		}
	}
	return nil
}

// checkBody wants the snippet's lines, in order, in the body; "…" inside a
// line stands for bytes left out.
func checkBody(r fixture.Response, text string) error {
	var body strings.Builder
	for _, c := range r.Chunks {
		body.Write(c.Data)
	}
	rest := body.String()
	for _, line := range strings.Split(text, "\n") {
		for _, piece := range strings.Split(line, "…") {
			i := strings.Index(rest, piece)
			if i < 0 {
				return fmt.Errorf("%q is not in the body (in this order)", piece)
			}
			rest = rest[i+len(piece):]
		}
	}
	return nil
}

// checkChunks wants one line per recorded chunk, "+AT ms N bytes TYPES",
// TYPES the types of the events that begin in it (each event is a line).
func checkChunks(r fixture.Response, text string) error {
	lines := strings.Split(text, "\n")
	if len(lines) != len(r.Chunks) {
		return fmt.Errorf("%d lines for %d recorded chunks", len(lines), len(r.Chunks))
	}
	for i, l := range lines {
		m := chunkRE.FindStringSubmatch(l)
		if m == nil {
			return fmt.Errorf("line %q is not +AT ms N bytes [TYPES]", l)
		}
		c := r.Chunks[i]
		at := strconv.FormatFloat(float64(c.At)/1e6, 'f', -1, 64)
		if m[1] != at || m[2] != strconv.Itoa(len(c.Data)) {
			return fmt.Errorf("chunk %d is +%s ms %d bytes, not %s", i+1, at, len(c.Data), l)
		}
		var types []string
		for _, line := range strings.Split(string(c.Data), "\n") {
			if rest, ok := strings.CutPrefix(line, `{"type":"`); ok {
				typ, _, _ := strings.Cut(rest, `"`)
				types = append(types, typ)
			}
		}
		if m[3] != strings.Join(types, ", ") {
			return fmt.Errorf("chunk %d begins events %q, not %q", i+1, strings.Join(types, ", "), m[3])
		}
	}
	return nil
}
