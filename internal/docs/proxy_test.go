package docs

import (
	"bytes"
	"encoding/json"
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

// Section 11 of docs/PROTOCOL.md is told from what `podwatch proxy` saw of
// client-go's kubelet path in protobuf: internal/compat's
// TestKubeletThroughProxy (-update-proxy-docs) keeps that client's
// recording under testdata/proxy/NAME and its lines of the proxy's JSON
// trace as testdata/proxy/NAME.trace.jsonl. Its snippets are checked
// against them:
//
//	<!-- proxy: NAME #N request -->   exchange N's request, "GET PATH?QUERY" (sorted, encoded), then maybe recorded headers, one a line
//	<!-- proxy: NAME #N response -->  its "PROTO STATUS" and recorded headers, as a wire snippet's
//	<!-- proxy: NAME #N frames -->    lines of podwatch's text trace of exchange N's body, served as recorded
//	<!-- proxy-trace: NAME -->        steps of the proxy's trace, in order, one a line: "KIND: EXPLAIN",
//	                                   a decision as "decision STEP: EXPLAIN"
var proxyMarkerRE = regexp.MustCompile(`^<!-- (proxy|proxy-trace): ([a-z0-9-]+)(?: #(\d+) (request|response|frames))? -->$`)

var proxyDir = filepath.Join("testdata", "proxy")

func checkProxy(t *testing.T, s snippet) {
	t.Helper()
	if s.source == "proxy-trace" {
		steps := proxyTraceSteps(t, filepath.Join(proxyDir, s.fixture+".trace.jsonl"))
		if err := inOrder(steps, strings.Split(s.text, "\n")); err != nil {
			t.Fatalf("%v\nthe trace's steps:\n%s", err, strings.Join(steps, "\n"))
		}
		return
	}
	rec, err := fixture.Load(filepath.Join(proxyDir, s.fixture))
	if err != nil {
		t.Fatal(err)
	}
	if s.n < 1 || s.n > len(rec.Exchanges) {
		t.Fatalf("the recording has %d exchanges, not #%d", len(rec.Exchanges), s.n)
	}
	ex := rec.Exchanges[s.n-1]
	switch s.part {
	case "request":
		err = checkProxyRequest(ex.Request, s.text)
	case "response":
		err = checkResponse(ex.Response, s.text)
	case "frames":
		var body bytes.Buffer
		for _, c := range ex.Response.Chunks {
			body.Write(c.Data)
		}
		m := recordedMeta{Request: requestLine(ex.Request), Status: ex.Response.Status, ContentType: ex.Response.ContentType()}
		tr := traceServed(t, m, body.Bytes())
		err = inOrder(strings.Split(tr, "\n"), strings.Split(s.text, "\n"))
		if err != nil {
			err = fmt.Errorf("%w\nthe trace:\n%s", err, tr)
		}
	default:
		err = fmt.Errorf("a proxy snippet names its part: request, response or frames")
	}
	if err != nil {
		t.Fatalf("%v\nsnippet:\n%s", err, s.text)
	}
}

// checkProxyRequest wants the request line as a wire snippet's, then
// "NAME: VALUE" lines, each a header the request was recorded with.
func checkProxyRequest(r fixture.Request, text string) error {
	lines := strings.Split(text, "\n")
	if err := checkRequest(r, lines[0]); err != nil {
		return err
	}
	for _, l := range lines[1:] {
		name, val, ok := strings.Cut(l, ": ")
		if !ok || r.Headers[name] != val {
			return fmt.Errorf("no recorded request header %q (the headers are %v)", l, r.Headers)
		}
	}
	return nil
}

// requestLine is r as a request snippet writes it.
func requestLine(r fixture.Request) string {
	line := r.Method + " " + r.Path
	if len(r.Query) > 0 {
		line += "?" + url.Values(r.Query).Encode()
	}
	return line
}

// inOrder requires want's lines to be lines of have, in the same order.
func inOrder(have, want []string) error {
	i := 0
	for _, w := range want {
		for i < len(have) && have[i] != w {
			i++
		}
		if i == len(have) {
			return fmt.Errorf("%q is not a line of it (in this order)", w)
		}
		i++
	}
	return nil
}

// proxyTraceSteps reads a JSON trace as "KIND: EXPLAIN" lines, a decision
// as "decision STEP: EXPLAIN"; steps that explain nothing are left out.
func proxyTraceSteps(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var st map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		var kind string
		json.Unmarshal(st["kind"], &kind)
		var body struct{ Step, Explain string }
		json.Unmarshal(st[kind], &body)
		if body.Explain == "" {
			continue
		}
		if kind == "decision" {
			kind += " " + body.Step
		}
		steps = append(steps, kind+": "+body.Explain)
	}
	return steps
}

// TestProxySnippetChecker checks the checker on the bundled recording: a
// request, response, frame or trace step it does not hold is refused.
func TestProxySnippetChecker(t *testing.T) {
	rec, err := fixture.Load(filepath.Join(proxyDir, "kubelet-protobuf"))
	if err != nil {
		t.Fatal(err)
	}
	first := rec.Exchanges[0]
	if err := checkRequest(first.Request, strings.Replace(requestLine(first.Request), "watch=true", "watch=false", 1)); err == nil {
		t.Errorf("a request with another query passed")
	}
	if err := checkProxyRequest(first.Request, requestLine(first.Request)+"\nAccept: application/json"); err == nil {
		t.Errorf("a request with another Accept passed")
	}
	if err := checkResponse(first.Response, "HTTP/1.1 200"); err == nil {
		t.Errorf("a response with another protocol passed")
	}
	if err := checkResponse(first.Response, "HTTP/2.0 200\nContent-Type: application/json"); err == nil {
		t.Errorf("a response with another Content-Type passed")
	}
	if err := inOrder([]string{"a", "b", "c"}, []string{"c", "a"}); err == nil {
		t.Errorf("lines out of order passed")
	}
	steps := proxyTraceSteps(t, filepath.Join(proxyDir, "kubelet-protobuf.trace.jsonl"))
	if len(steps) == 0 {
		t.Fatalf("the bundled trace has no step")
	}
	if err := inOrder(steps, []string{steps[0] + "x"}); err == nil {
		t.Errorf("a step the trace lacks passed")
	}
}

// TestProxyRecordingClaims checks what section 12 says of the bundled
// recording as a whole, which no single snippet shows: each watch has a
// timeoutSeconds of its own between 5 and 10 minutes, every request asks
// for protobuf first, and no 410 comes, as an answer or an ERROR event.
func TestProxyRecordingClaims(t *testing.T) {
	rec, err := fixture.Load(filepath.Join(proxyDir, "kubelet-protobuf"))
	if err != nil {
		t.Fatal(err)
	}
	timeouts := map[string]bool{}
	for i, ex := range rec.Exchanges {
		q := ex.Request.Query
		if accept := ex.Request.Headers["Accept"]; accept != "application/vnd.kubernetes.protobuf,application/json" {
			t.Errorf("#%d asks Accept %q", i+1, accept)
		}
		if ex.Response.Status == 410 {
			t.Errorf("#%d is answered 410", i+1)
		}
		for _, c := range ex.Response.Chunks {
			if bytes.Contains(c.Data, []byte("\x0a\x05ERROR")) {
				t.Errorf("#%d carries an ERROR event", i+1)
			}
		}
		if url.Values(q).Get("watch") != "true" {
			continue
		}
		ts := url.Values(q).Get("timeoutSeconds")
		n, err := strconv.Atoi(ts)
		if err != nil || n < 300 || n > 600 || timeouts[ts] {
			t.Errorf("#%d: timeoutSeconds %q is not a new one between 300 and 600", i+1, ts)
		}
		timeouts[ts] = true
	}
	if len(timeouts) < 2 {
		t.Fatalf("the recording holds %d watches; section 12 tells several", len(timeouts))
	}
}
