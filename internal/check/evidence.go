package check

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/podwatch/podwatch/internal/mask"
)

// Evidence is what a check saw: a sentence, what the protocol requires (on a
// failure), what the user could change when a refusal says (Options.Remedy),
// and the exchanges behind it.
type Evidence struct {
	Summary   string     `json:"summary"`
	Requires  string     `json:"requires,omitempty"`
	Remedy    string     `json:"remedy,omitempty"`
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// Exchange is one request and what came back, as the evidence shows it.
// It never holds a credential: headers are masked by the trace's rule
// (package mask), and rest refuses a host URL that carries one.
type Exchange struct {
	Request string `json:"request"` // "GET /api/v1/pods?..."
	Accept  string `json:"accept,omitempty"`
	Auth    string `json:"authorization,omitempty"` // the scheme only
	// What came back; Error when no answer did.
	Status           int    `json:"status,omitempty"`
	Proto            string `json:"proto,omitempty"`
	ContentType      string `json:"content_type,omitempty"`
	TransferEncoding string `json:"transfer_encoding,omitempty"`
	ContentLength    int64  `json:"content_length,omitempty"`
	RetryAfter       string `json:"retry_after,omitempty"`
	// Body is the start of a non-2xx answer's body.
	Body  string `json:"body,omitempty"`
	Error string `json:"error,omitempty"`
	// Events counts the watch events read; Frame is the one at issue.
	Events int    `json:"events,omitempty"`
	Frame  *Frame `json:"frame,omitempty"`
	// End says how a watch body ended, and when, after the request was sent.
	End string `json:"end,omitempty"`
}

// Frame is one watch event as it came, located in its stream.
type Frame struct {
	Offset          int64   `json:"offset"` // of its first byte in the body
	AtMS            float64 `json:"at_ms"`  // after the request was sent
	Type            string  `json:"type"`
	ResourceVersion string  `json:"resourceVersion,omitempty"`
	Bytes           string  `json:"bytes"` // the event (as JSON), cut short
}

// frameBytesLimit bounds how much of an event the evidence quotes.
const frameBytesLimit = 400

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
		for !utf8.Valid(b) && len(b) > 0 {
			b = b[:len(b)-1]
		}
		return string(b) + "…"
	}
	return string(b)
}

func (x *Exchange) String() string {
	var b strings.Builder
	b.WriteString(x.Request)
	switch {
	case x.Error != "":
		fmt.Fprintf(&b, ": %s", x.Error)
	case x.Status != 0:
		fmt.Fprintf(&b, ": %d %s", x.Status, x.Proto)
		if x.ContentType != "" {
			fmt.Fprintf(&b, " %s", x.ContentType)
		}
	}
	if x.Frame != nil {
		fmt.Fprintf(&b, "; frame at byte %d (+%.0f ms) %s rv=%s: %s", x.Frame.Offset, x.Frame.AtMS, x.Frame.Type, x.Frame.ResourceVersion, x.Frame.Bytes)
	}
	if x.End != "" {
		fmt.Fprintf(&b, "; %s", x.End)
	}
	return b.String()
}

type exchangeKey struct{}

// withExchange has the recorder fill x for the request sent with ctx.
func withExchange(ctx context.Context, x *Exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, x)
}

// recorder is the transport layer that fills the Exchange of each request
// sent with one, and keeps every 429 it sees for error-retry-after. It sits
// beneath the layers that add credentials, so it sees requests as sent, and
// masks what it keeps.
type recorder struct {
	next http.RoundTripper
	mu   *sync.Mutex
	too  *[]Exchange // every 429 answer
}

// bodyLimit bounds the part of a non-2xx body kept.
const bodyLimit = 2048

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	x, _ := req.Context().Value(exchangeKey{}).(*Exchange)
	if x == nil {
		x = &Exchange{}
	}
	x.Request = req.Method + " " + req.URL.RequestURI()
	x.Accept = req.Header.Get("Accept")
	if a := req.Header.Get("Authorization"); a != "" {
		x.Auth = mask.Header("Authorization", a)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		x.Error = err.Error()
		return resp, err
	}
	x.Status, x.Proto = resp.StatusCode, resp.Proto
	x.ContentType = resp.Header.Get("Content-Type")
	x.TransferEncoding = strings.Join(resp.TransferEncoding, ",")
	x.ContentLength = resp.ContentLength
	x.RetryAfter = resp.Header.Get("Retry-After")
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body = &capture{ReadCloser: resp.Body, x: x}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		r.mu.Lock()
		*r.too = append(*r.too, *x)
		r.mu.Unlock()
	}
	return resp, nil
}

// capture keeps the start of a body as it is read.
type capture struct {
	io.ReadCloser
	x   *Exchange
	buf []byte
}

func (c *capture) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if room := bodyLimit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(n, room)]...)
		c.x.Body = clip(c.buf, bodyLimit)
	}
	return n, err
}
