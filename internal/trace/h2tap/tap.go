package h2tap

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptrace"
	"strings"
	"sync"

	"golang.org/x/net/http2"

	"github.com/podwatch/podwatch/internal/trace"
)

// Tap is the HTTP/2 tap of one Tracer, a trace.ConnTap: give it to the
// Tracer in trace.Options.Tap, whose Instrument wires it into the client.
type Tap struct {
	t *trace.Tracer
	// mu orders the connections' numbers with the steps that tell them.
	mu    sync.Mutex
	conns int
}

// New returns a Tap for one Tracer.
func New() *Tap { return &Tap{} }

// Start gives the Tap the Tracer it tells; trace.New calls it.
func (p *Tap) Start(t *trace.Tracer) { p.t = t }

// tapConn tells the frames that cross a connection, above TLS.
type tapConn struct {
	net.Conn
	t  *trace.Tracer
	id int

	mu      sync.Mutex
	recv    frameScanner
	sent    frameScanner
	waiting []int          // requests sent on this connection without a stream yet
	streams map[uint32]int // stream ID -> request number
}

// WrapConn stands between each HTTP/2 connection the client's transport
// made and the HTTP/2 client on it, after TLS (the trace's
// resthook.Hooks.WrapConn), and tells the connection and every frame that
// crosses it either way. It only reads the bytes: the traced client runs
// the same transport, pool and pings as an untraced one.
func (p *Tap) WrapConn(authority string, c net.Conn) net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns++
	tc := &tapConn{Conn: c, t: p.t, id: p.conns, streams: map[uint32]int{}}
	tc.sent.sent, tc.sent.preface = true, len(http2.ClientPreface)
	cs := tc.ConnectionState()
	p.t.Tell(trace.Step{Kind: trace.KindConn, Conn: &trace.Conn{ID: tc.id, Authority: authority,
		TLS: tls.VersionName(cs.Version) + ", ALPN " + cs.NegotiatedProtocol}})
	return tc
}

// Request returns the hooks that tie the HTTP/2 stream request n opens to
// it, and done, to call once the request has its answer or its error.
func (p *Tap) Request(n int) (*httptrace.ClientTrace, func()) {
	tie := &streamTie{n: n}
	return tie.clientTrace(), tie.done
}

// ConnectionState is the TLS state of the tapped connection, which the
// HTTP/2 client puts on each response as a *tls.Conn's.
func (c *tapConn) ConnectionState() tls.ConnectionState {
	if cs, ok := c.Conn.(interface{ ConnectionState() tls.ConnectionState }); ok {
		return cs.ConnectionState()
	}
	return tls.ConnectionState{}
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

// streamTie ties the HTTP/2 stream a request opens to the request, on
// the connection x/net's pool gave it. x/net tells which connection each
// attempt got (GotConn), then writes the attempt's header block under that
// connection's write lock, after the HEADERS of every request before it
// have gone out, and tells each field as it encodes it (WroteHeaderField):
// so the next HEADERS the tap sees open a stream there is this request's.
type streamTie struct {
	n int

	mu   sync.Mutex
	conn *tapConn // the current attempt's; nil over HTTP/1.1
	told bool     // conn expects this attempt's HEADERS
}

func (s *streamTie) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			tc, _ := info.Conn.(*tapConn)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.forgetLocked() // a retry: the attempt before may have sent nothing
			s.conn = tc
		},
		WroteHeaderField: func(string, []string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.conn != nil && !s.told {
				s.conn.expect(s.n)
				s.told = true
			}
		},
	}
}

// done is called once the request has its answer or its error: had its
// HEADERS not gone out, no later request's must be taken for them.
func (s *streamTie) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked()
}

func (s *streamTie) forgetLocked() {
	if s.told {
		s.conn.forget(s.n)
	}
	s.conn, s.told = nil, false
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
	var frames []trace.Frame
	s.feed(data, func(f trace.Frame) {
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
	steps := make([]trace.Step, len(frames))
	for i := range frames {
		steps[i] = trace.Step{Kind: trace.KindFrame, Req: reqs[i], Frame: &frames[i]}
	}
	c.t.Tell(steps...)
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

func (s *frameScanner) feed(data []byte, emit func(trace.Frame)) {
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
func describeFrame(h http2.FrameHeader, whole []byte, sent bool) trace.Frame {
	f := trace.Frame{Type: h.Type.String(), Stream: h.StreamID, Length: h.Length, Flags: frameFlags(h)}
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

var (
	_ net.Conn      = (*tapConn)(nil)
	_ trace.ConnTap = (*Tap)(nil)
)
