package base

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/mask"
	"github.com/podwatch/podwatch/internal/trace/text"
	"github.com/podwatch/podwatch/rest/wire"
)

// Verbosity levels of the -v HTTP log, as kubectl's.
const (
	VerboseRequests = 6 // method, URL, status, latency
	verboseHeaders  = 7 // request and response headers, credentials masked
	verboseBodies   = 8 // bodies, cut short
	verboseCurl     = 9 // a curl command line per request, and longer bodies
)

// How much of a body -v 8 and -v 9 show, in bytes (kubectl's limits).
const (
	bodyLogLimit     = 1024
	longBodyLogLimit = 10240
)

// bodyLimit is how much of a body log shows.
func bodyLimit(log *Logger) int {
	if log.V(verboseCurl) {
		return longBodyLogLimit
	}
	return bodyLogLimit
}

// HTTPLogLayer returns the -v RoundTripper, or nil below level 6.
func HTTPLogLayer(log *Logger) Layer {
	if !log.V(VerboseRequests) {
		return nil
	}
	return func(next http.RoundTripper) http.RoundTripper { return &httpLogTransport{next: next, log: log} }
}

// httpLogTransport logs each request and its answer (-v 6 to 8; --trace is
// internal/trace). It sits beneath the kubeconfig's credential layer, so it
// sees the Authorization header that is finally sent, and masks it as the
// trace does.
type httpLogTransport struct {
	next http.RoundTripper
	log  *Logger
}

func (t *httpLogTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	where := req.Method + " " + req.URL.Redacted()
	if t.log.V(verboseCurl) {
		t.log.Printf("%s", curlCommand(req))
	}
	if t.log.V(verboseHeaders) {
		t.log.Printf("%s\nRequest Headers:%s", where, formatHeaders(req.Header))
	}
	if t.log.V(verboseBodies) {
		t.logRequestBody(req)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	elapsed := time.Since(start).Round(time.Millisecond)
	if err != nil {
		t.log.Printf("%s failed after %s: %v", where, elapsed, err)
		return nil, err
	}
	t.log.Printf("%s %s in %d milliseconds", where, resp.Status, elapsed.Milliseconds())
	if t.log.V(verboseHeaders) {
		t.log.Printf("Response Headers:%s", formatHeaders(resp.Header))
	}
	if t.log.V(verboseBodies) && resp.Body != nil {
		resp.Body = &loggedBody{body: resp.Body, log: t.log, where: where, limit: bodyLimit(t.log),
			contentType: binaryType(resp.Header)}
	}
	return resp, nil
}

func (t *httpLogTransport) logRequestBody(req *http.Request) {
	if req.Body == nil || req.GetBody == nil {
		return
	}
	b, err := req.GetBody()
	if err != nil {
		return
	}
	defer b.Close()
	limit := bodyLimit(t.log)
	data, _ := io.ReadAll(io.LimitReader(b, int64(limit)+1))
	if ct := binaryType(req.Header); ct != "" {
		t.log.Printf("Request Body%s", binaryBody(data, limit, ct, len(data) <= limit))
		return
	}
	t.log.Printf("Request Body: %s", cutBody(data, limit))
}

// curlCommand is req as a curl command line that sends the same request,
// credentials masked as in the header log (so it needs them put back to
// run). The request body, if any, is logged on its own at -v 8.
func curlCommand(req *http.Request) string {
	var b strings.Builder
	b.WriteString("curl -v -X" + shellQuote(req.Method))
	for _, n := range sortedNames(req.Header) {
		for _, v := range req.Header[n] {
			b.WriteString(" -H " + shellQuote(n+": "+mask.Header(n, v)))
		}
	}
	b.WriteString(" " + shellQuote(req.URL.Redacted()))
	return b.String()
}

// shellQuote quotes s for a POSIX shell unless it is a plain word, with
// control characters escaped as quote does so that a logged line cannot
// drive the terminal.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(quote([]byte(s)), "'", `'\''`) + "'"
}

func formatHeaders(h http.Header) string {
	var b strings.Builder
	for _, n := range sortedNames(h) {
		for _, v := range h[n] {
			b.WriteString("\n    " + n + ": " + mask.Header(n, v))
		}
	}
	return b.String()
}

func sortedNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// cutBody shows at most limit bytes of data, marking a cut.
func cutBody(data []byte, limit int) string {
	if len(data) > limit {
		return quote(data[:limit]) + " (cut short)"
	}
	return quote(data)
}

// binaryType is h's Content-Type if it names a binary wire format,
// protobuf or CBOR, else "".
func binaryType(h http.Header) string {
	ct := h.Get("Content-Type")
	if f, ok := wire.ParseContentType(ct); ok && f != wire.JSON {
		return ct
	}
	return ""
}

// binaryBody shows the first limit bytes of a protobuf or CBOR body as a hex
// dump, under a line saying what they begin with, in the trace's words (a
// protobuf watch's first frame: its length prefix, WatchEvent and envelope;
// another protobuf body's envelope; a CBOR item's tag). Someone reading -v 8
// studies the wire: the bytes as sent, which the hex dump shows exactly and
// which docs/PROTOCOL.md's snippets are dumps of, laid out like them. Raw
// binary would garble a terminal, and the transcoded JSON is what -o json and
// the trace show already; it would hide the framing this log is read for.
func binaryBody(data []byte, limit int, contentType string, complete bool) string {
	shown, cut := data, ""
	if len(data) > limit {
		shown, cut = data[:limit], ", cut short"
	}
	head := fmt.Sprintf(" (%s, %d bytes shown in hex%s)", contentType, len(shown), cut)
	if what := text.DescribeBody(data, contentType, complete); what != "" {
		head += ": " + what
	}
	return head + "\n" + strings.TrimSuffix(indent(hex.Dump(shown), "    "), "\n    ")
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by)
}

// quote shows a body on one line, with control characters escaped so that a
// hostile server cannot drive the terminal.
func quote(data []byte) string {
	var b strings.Builder
	for _, r := range string(data) {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// loggedBody shows the first limit bytes of a body once they have been read,
// or what there was when the body ended first. It never reads ahead.
type loggedBody struct {
	body  io.ReadCloser
	log   *Logger
	where string
	limit int
	// contentType is the body's when it is binary (protobuf, CBOR): shown
	// as a hex dump.
	contentType string

	mu     sync.Mutex
	buf    bytes.Buffer
	logged bool
}

func (b *loggedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.logged {
		b.buf.Write(p[:n])
		if b.buf.Len() > b.limit || err != nil {
			b.flushLocked(err)
		}
	}
	return n, err
}

func (b *loggedBody) Close() error {
	b.mu.Lock()
	if !b.logged {
		b.flushLocked(nil)
	}
	b.mu.Unlock()
	return b.body.Close()
}

func (b *loggedBody) flushLocked(err error) {
	b.logged = true
	msg := "Response Body of " + b.where + ": " + cutBody(b.buf.Bytes(), b.limit)
	if b.contentType != "" {
		complete := err != nil && errors.Is(err, io.EOF)
		msg = "Response Body of " + b.where + binaryBody(b.buf.Bytes(), b.limit, b.contentType, complete)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		msg += " (then: " + err.Error() + ")"
	}
	b.buf = bytes.Buffer{}
	b.log.Printf("%s", msg)
}
