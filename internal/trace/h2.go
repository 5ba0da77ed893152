package trace

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
)

// configureHTTP2 makes tr speak HTTP/2 through golang.org/x/net/http2 over
// connections the trace taps above TLS, so that every frame read or written
// is told (a rest.Config.ConfigureTransport hook). Requests still go through
// tr as before: HTTP/1.1 is used when the server does not offer h2, and a
// transport limited to HTTP/1.1 is left alone. The ping settings of
// tr.HTTP2 carry over. It must be called once, before tr is used.
func (t *Tracer) configureHTTP2(tr *http.Transport) error {
	if tr.Protocols != nil && !tr.Protocols.HTTP2() {
		return nil
	}
	t2, err := http2.ConfigureTransports(tr)
	if err != nil {
		return fmt.Errorf("trace: set up HTTP/2: %w", err)
	}
	// Replaces the pool x/net would put the connection in: a tapped
	// connection serves requests itself, and tr keeps it while it can.
	tr.TLSNextProto[http2.NextProtoTLS] = func(authority string, c *tls.Conn) http.RoundTripper {
		tc := t.tap(authority, c)
		cc, err := t2.NewClientConn(tc)
		if err != nil {
			go c.Close()
			return erringRoundTripper{err}
		}
		return &h2Conn{cc: cc, tap: tc}
	}
	return nil
}

// erringRoundTripper is how net/http's Transport is told a new connection
// could not be set up (it looks for the RoundTripErr method).
type erringRoundTripper struct{ err error }

func (e erringRoundTripper) RoundTripErr() error                             { return e.err }
func (e erringRoundTripper) RoundTrip(*http.Request) (*http.Response, error) { return nil, e.err }

// h2Conn serves requests on one tapped connection. Once it can take no more
// (closed, or the server said GOAWAY) it answers http2.ErrNoCachedConn,
// which makes net/http's Transport drop it and dial anew.
type h2Conn struct {
	cc   *http2.ClientConn
	tap  *tapConn
	used atomic.Bool // it has carried a request through
}

func (c *h2Conn) RoundTrip(req *http.Request) (*http.Response, error) {
	if !c.cc.ReserveNewRequest() {
		return nil, http2.ErrNoCachedConn
	}
	n := requestNumber(req.Context())
	c.tap.expect(n)
	resp, err := c.cc.RoundTrip(req)
	if err == nil {
		c.used.Store(true)
		return resp, nil
	}
	c.tap.forget(n)
	// A connection that served before and died under this request had gone
	// stale: as x/net's own pool would, have the request tried on a new one,
	// if it can be sent again. A new connection that fails is the answer.
	if c.used.Load() && req.Context().Err() == nil && !c.cc.CanTakeNewRequest() && replayable(req) {
		return nil, http2.ErrNoCachedConn
	}
	return nil, err
}

func replayable(req *http.Request) bool {
	return (req.Method == http.MethodGet || req.Method == http.MethodHead) && (req.Body == nil || req.Body == http.NoBody)
}

// tapConn tells the frames that cross a TLS connection, above the TLS
// layer. ConnectionState comes from the embedded *tls.Conn.
type tapConn struct {
	*tls.Conn
	t  *Tracer
	id int

	mu      sync.Mutex
	recv    frameScanner
	sent    frameScanner
	waiting []int          // requests sent on this connection without a stream yet
	streams map[uint32]int // stream ID -> request number
}

func (t *Tracer) tap(authority string, c *tls.Conn) *tapConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conns++
	tc := &tapConn{Conn: c, t: t, id: t.conns, streams: map[uint32]int{}}
	tc.sent.sent, tc.sent.preface = true, len(http2.ClientPreface)
	cs := c.ConnectionState()
	t.emitLocked(Step{Kind: KindConn, Conn: &Conn{ID: tc.id, Authority: authority,
		TLS: tls.VersionName(cs.Version) + ", ALPN " + cs.NegotiatedProtocol}})
	return tc
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.scan(&c.recv, "recv", p[:n])
	return n, err
}

// Write tells the frames in p before they go: once they are on the wire the
// server may answer, and the answer's frames must find their stream already
// tied to its request and come after the frames that asked. A write that
// fails part way ends the connection (crypto/tls keeps the error), so what
// was told is what the client tried to send.
func (c *tapConn) Write(p []byte) (int, error) {
	c.scan(&c.sent, "sent", p)
	return c.Conn.Write(p)
}

func (c *tapConn) expect(req int) {
	c.mu.Lock()
	c.waiting = append(c.waiting, req)
	c.mu.Unlock()
}

func (c *tapConn) forget(req int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := indexOf(c.waiting, req); i >= 0 {
		c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
	}
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func (c *tapConn) scan(s *frameScanner, dir string, data []byte) {
	c.mu.Lock()
	var frames []Frame
	s.feed(data, func(f Frame) {
		f.Conn, f.Dir = c.id, dir
		frames = append(frames, f)
	})
	reqs := make([]int, len(frames))
	for i, f := range frames {
		// A request's stream is the one its HEADERS open: the client sends
		// them in the order its requests reach the connection.
		if _, ok := c.streams[f.Stream]; !ok && dir == "sent" && f.Type == "HEADERS" && len(c.waiting) > 0 {
			c.streams[f.Stream], c.waiting = c.waiting[0], c.waiting[1:]
		}
		reqs[i] = c.streams[f.Stream]
	}
	c.mu.Unlock()
	if len(frames) == 0 {
		return
	}
	c.t.mu.Lock()
	defer c.t.mu.Unlock()
	for i := range frames {
		c.t.emitLocked(Step{Kind: KindFrame, Req: reqs[i], Frame: &frames[i]})
	}
}

// maxParsedFrame is the largest non-DATA frame kept whole to be read with a
// Framer; larger ones (and every DATA frame, whose payload is the body the
// trace already reads) are told from their 9-byte header alone.
const maxParsedFrame = 64 << 10

// frameScanner cuts one direction of a connection into frames as bytes pass.
type frameScanner struct {
	sent    bool // the client's side: it begins with the preface
	preface int  // bytes of the client preface still to skip
	hdr     []byte
	head    http2.FrameHeader
	have    bool   // head is read; payload bytes follow
	left    uint32 // payload bytes still to come
	keep    []byte // the whole frame, when it is parsed
	broken  bool
}

func (s *frameScanner) feed(data []byte, emit func(Frame)) {
	for len(data) > 0 && !s.broken {
		if s.preface > 0 {
			n := min(s.preface, len(data))
			s.preface -= n
			data = data[n:]
			continue
		}
		if !s.have {
			n := min(frameHeaderLen-len(s.hdr), len(data))
			s.hdr = append(s.hdr, data[:n]...)
			data = data[n:]
			if len(s.hdr) < frameHeaderLen {
				return
			}
			h, err := http2.ReadFrameHeader(bytes.NewReader(s.hdr))
			if err != nil {
				s.broken = true
				return
			}
			s.head, s.have, s.left = h, true, h.Length
			s.keep = nil
			if h.Type != http2.FrameData && h.Length <= maxParsedFrame {
				s.keep = append(make([]byte, 0, frameHeaderLen+int(h.Length)), s.hdr...)
			}
			s.hdr = s.hdr[:0]
		}
		n := int(min(uint32(len(data)), s.left))
		if s.keep != nil {
			s.keep = append(s.keep, data[:n]...)
		}
		s.left -= uint32(n)
		data = data[n:]
		if s.left == 0 {
			s.have = false
			emit(describeFrame(s.head, s.keep, s.sent))
		}
	}
}

// frameHeaderLen is the size of every frame's header (RFC 9113, section 4.1).
const frameHeaderLen = 9

// describeFrame tells a frame from its header, and from the whole frame
// (read with x/net's Framer) when it was kept. Header blocks stay encoded.
func describeFrame(h http2.FrameHeader, whole []byte, sent bool) Frame {
	f := Frame{Type: h.Type.String(), Stream: h.StreamID, Length: h.Length, Flags: frameFlags(h)}
	if whole == nil {
		return f
	}
	fr := http2.NewFramer(nil, bytes.NewReader(whole))
	parsed, err := fr.ReadFrame()
	if err != nil {
		f.Detail = "unreadable: " + err.Error()
		return f
	}
	switch p := parsed.(type) {
	case *http2.SettingsFrame:
		var b []string
		_ = p.ForeachSetting(func(s http2.Setting) error {
			b = append(b, fmt.Sprintf("%s=%d", s.ID, s.Val))
			return nil
		})
		f.Detail = strings.Join(b, " ")
	case *http2.WindowUpdateFrame:
		f.Detail = fmt.Sprintf("increment=%d", p.Increment)
	case *http2.PingFrame:
		f.Detail = fmt.Sprintf("data=%x", p.Data)
	case *http2.GoAwayFrame:
		f.Detail = fmt.Sprintf("last-stream=%d code=%s", p.LastStreamID, p.ErrCode)
		if d := p.DebugData(); len(d) > 0 {
			f.Detail += " debug=" + quoteBytes(d, 200)
		}
	case *http2.RSTStreamFrame:
		f.Detail = "code=" + p.ErrCode.String()
	case *http2.HeadersFrame:
		if sent {
			f.Detail = fmt.Sprintf("the request's header block, %d bytes of HPACK, not decoded: it holds the Authorization header", len(p.HeaderBlockFragment()))
		} else {
			f.Detail = fmt.Sprintf("the response's header block, %d bytes of HPACK (the response step shows what it says)", len(p.HeaderBlockFragment()))
		}
	case *http2.ContinuationFrame:
		f.Detail = "more of a header block (not decoded)"
	}
	return f
}

var flagNames = map[http2.FrameType][]struct {
	bit  http2.Flags
	name string
}{
	http2.FrameData:         {{http2.FlagDataEndStream, "END_STREAM"}, {http2.FlagDataPadded, "PADDED"}},
	http2.FrameHeaders:      {{http2.FlagHeadersEndStream, "END_STREAM"}, {http2.FlagHeadersEndHeaders, "END_HEADERS"}, {http2.FlagHeadersPadded, "PADDED"}, {http2.FlagHeadersPriority, "PRIORITY"}},
	http2.FrameSettings:     {{http2.FlagSettingsAck, "ACK"}},
	http2.FramePing:         {{http2.FlagPingAck, "ACK"}},
	http2.FrameContinuation: {{http2.FlagContinuationEndHeaders, "END_HEADERS"}},
}

func frameFlags(h http2.FrameHeader) string {
	var names []string
	for _, f := range flagNames[h.Type] {
		if h.Flags.Has(f.bit) {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, "|")
}

// quoteBytes shows server-sent bytes safely on one line, cut at max.
func quoteBytes(b []byte, max int) string {
	if len(b) > max {
		b = b[:max]
	}
	return fmt.Sprintf("%q", b)
}

var _ net.Conn = (*tapConn)(nil)
