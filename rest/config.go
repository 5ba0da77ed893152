package rest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest/wire"
)

// TLSConfig says how to trust the server and how to prove who we are. For each
// pair of File and Data fields, Data wins when both are set.
type TLSConfig struct {
	// CAFile and CAData hold PEM certificates of the authorities that sign the
	// server's certificate; when both are empty the system roots are used.
	CAFile string
	CAData []byte
	// CertFile/KeyFile or CertData/KeyData hold a PEM client certificate and its key.
	// A pair from files is read again at the next TLS handshake once either file
	// changes, so a rotated certificate is presented by every new connection;
	// until the new pair is complete and valid, the last good one is kept.
	CertFile, KeyFile string
	CertData, KeyData []byte
	// ServerName overrides the name the server's certificate is checked against.
	ServerName string
	// Insecure skips verification of the server's certificate. It cannot be
	// combined with a CA, which would then be silently ignored.
	Insecure bool
	// GetClientCertificate, when set, supplies the client certificate at each
	// handshake (an exec credential plugin's rotating certificate); it wins over
	// the static pair above.
	GetClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
}

// Config describes one apiserver and how to talk to it. Only Host is required.
type Config struct {
	// Host is "https://host:port" or "http://host:port", optionally followed by a
	// path prefix; a bare "host:port" means https. It must not carry credentials.
	Host string
	TLS  TLSConfig
	// BearerToken is sent as "Authorization: Bearer ..." on every request.
	BearerToken string
	// BearerTokenFile, when set, wins over BearerToken. It is re-read whenever its
	// size or modification time changes, so rotated service account tokens are
	// picked up; a failure to read it fails the request.
	BearerTokenFile string
	// UserAgent defaults to "podwatch/dev (GOOS/GOARCH)".
	UserAgent string
	// Timeout bounds non-watch requests: all of Do, and the wait for response
	// headers in Stream (the caller reads a streamed body at its own pace).
	// Watches never get a timeout. Zero means none.
	Timeout time.Duration
	// MaxRetries bounds retries of non-watch requests answered 429, or 5xx with
	// Retry-After. Zero means 5; negative means no retries.
	MaxRetries int
	// Transport replaces the transport NewClient builds, TLS settings included
	// (tests use it).
	Transport http.RoundTripper
	// WrapTransport, when set, wraps the final transport: a program's own
	// credentials (an exec plugin's token, impersonation), or an observer of
	// every request as podwatch's trace is. What it wraps sees the
	// Authorization header: it must not print it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Proxy picks a proxy per request; nil means HTTPS_PROXY/NO_PROXY from the
	// environment as NewClient finds it (see ProxyFromEnvironment).
	Proxy func(*http.Request) (*url.URL, error)
	// ContentType is the format every request asks for, and so the format of
	// the bodies Do and Stream return: "" or wire.ContentTypeJSON, or
	// wire.ContentTypeProtobuf, the kubelet's (Client.Format names it for
	// DecodeList and the watch Decoder; cache.ListWatch asks it itself). With
	// protobuf an answer in any other format fails with a *ContentTypeError
	// (podwatch does not fall back to JSON as the kubelet may: asking for
	// protobuf is asking to see it), and error answers, which come in protobuf
	// too, are read as such. Protobuf objects are read through a schema of Pod,
	// PodList and Status (package protowire); another kind fails with a
	// *protowire.KindError. wire.ContentTypeCBOR (alpha in Kubernetes 1.37,
	// behind the CBORServingAndStorage gate) works the same way; a server
	// without it answers 406, a *StatusError. CBOR objects are read without a
	// schema.
	ContentType string
	// DisableCompression stops asking for gzip bodies.
	DisableCompression bool
	// DisableHTTP2 forces HTTP/1.1 even over TLS.
	DisableHTTP2 bool
	// HTTP2ReadIdleTimeout is how long an HTTP/2 connection may stay silent before
	// a ping checks it (default 30s); HTTP2PingTimeout is how long the ping may go
	// unanswered before the connection, and every watch on it, is closed (15s).
	HTTP2ReadIdleTimeout time.Duration
	HTTP2PingTimeout     time.Duration
	// ResponseHeaderTimeout bounds the wait for a response's headers on every
	// request, watches included (an apiserver answers a watch's headers at once;
	// a server that accepts the connection and then says nothing is dead).
	// Zero means 60s; negative means no bound.
	ResponseHeaderTimeout time.Duration

	// hooks are podwatch's own tools' (package internal/resthook): a
	// replay's clock, the trace's tap. The client's waits and guards run on
	// the wall clock unless a hook says otherwise.
	hooks resthook.Hooks
}

const defaultMaxRetries = 5

// Client sends requests to one apiserver. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	http       *http.Client
	userAgent  string
	token      *tokenSource
	timeout    time.Duration
	maxRetries int
	format     wire.Format
	clock      timing.Clock // hooks.Clock, or the wall clock
	// sleep waits d or until ctx ends; tests replace it to keep retries fast.
	sleep     func(ctx context.Context, d time.Duration) error
	closeIdle func()
}

// NewClient checks cfg and builds a Client. It fails on a malformed Host and on TLS
// material that cannot be read or parsed, naming the file at fault.
func NewClient(cfg Config) (*Client, error) {
	base, err := parseHost(cfg.Host)
	if err != nil {
		return nil, err
	}
	format, err := parseContentType(cfg.ContentType)
	if err != nil {
		return nil, err
	}
	rt := cfg.Transport
	var built *transport
	if rt == nil {
		if built, err = newTransport(&cfg); err != nil {
			return nil, err
		}
		rt = built
	}
	if cfg.WrapTransport != nil {
		rt = cfg.WrapTransport(rt)
	}
	c := &Client{
		base: base,
		// No Client.Timeout: it would also bound reading a watch body.
		http:       &http.Client{Transport: rt},
		userAgent:  cfg.UserAgent,
		token:      newTokenSource(cfg.BearerToken, cfg.BearerTokenFile),
		timeout:    cfg.Timeout,
		maxRetries: cfg.MaxRetries,
		format:     format,
		clock:      timing.OrWall(cfg.hooks.Clock),
	}
	c.sleep = func(ctx context.Context, d time.Duration) error { return sleepOn(ctx, c.clock, d) }
	c.closeIdle = c.http.CloseIdleConnections
	if built != nil {
		// Straight to the transport built here: a WrapTransport layer need
		// not pass the call on.
		c.closeIdle = built.CloseIdleConnections
	}
	if c.userAgent == "" {
		c.userAgent = fmt.Sprintf("podwatch/dev (%s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = defaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	return c, nil
}

// Host returns a copy of the server's base URL.
func (c *Client) Host() *url.URL {
	u := *c.base
	return &u
}

// CloseIdleConnections closes the connections no request is using, so the next
// request opens a new one (and so presents a rotated client certificate). A
// connection carrying a watch is not idle and stays open.
func (c *Client) CloseIdleConnections() { c.closeIdle() }

// Get starts a GET request.
func (c *Client) Get() *Request { return newRequest(c, http.MethodGet) }

func parseHost(host string) (*url.URL, error) {
	if host == "" {
		return nil, fmt.Errorf("rest: config has no host")
	}
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("rest: host %q: %w", host, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("rest: host %q: scheme must be http or https", host)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("rest: host %q has no host name", host)
	}
	if u.User != nil {
		// Error messages and traces print URLs; credentials in one would leak.
		return nil, fmt.Errorf("rest: host must not carry credentials; use a bearer token or client certificate")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("rest: host %q must not have a query or fragment", u.Redacted())
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// Timeouts for building a connection. Nothing bounds reading a response: a watch
// may rightly stay silent for minutes, and HTTP/2 pings find dead connections.
const (
	dialTimeout      = 30 * time.Second
	handshakeTimeout = 10 * time.Second
	h2ReadIdle       = 30 * time.Second
	h2PingTimeout    = 15 * time.Second
	headerTimeout    = 60 * time.Second
)

func newTransport(cfg *Config) (*transport, error) {
	tlsCfg, err := cfg.TLS.build()
	if err != nil {
		return nil, err
	}
	proxy := cfg.Proxy
	if proxy == nil {
		proxy = ProxyFromEnvironment()
	}
	readIdle, pingTimeout := h2ReadIdle, h2PingTimeout
	if cfg.HTTP2ReadIdleTimeout > 0 {
		readIdle = cfg.HTTP2ReadIdleTimeout
	}
	if cfg.HTTP2PingTimeout > 0 {
		pingTimeout = cfg.HTTP2PingTimeout
	}
	respHeader := headerTimeout
	switch {
	case cfg.ResponseHeaderTimeout > 0:
		respHeader = cfg.ResponseHeaderTimeout
	case cfg.ResponseHeaderTimeout < 0:
		respHeader = 0
	}
	dial := (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	if wrap := cfg.hooks.WrapDial; wrap != nil {
		dial = wrap(dial)
	}
	t := &transport{h1: &http.Transport{
		Proxy:                 proxy,
		ResponseHeaderTimeout: respHeader,
		DisableCompression:    cfg.DisableCompression,
		DialContext:           dial,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   handshakeTimeout,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
	if cfg.DisableHTTP2 {
		// Only HTTP/1.1 is offered in ALPN; the server then speaks it.
		t.h1.Protocols = new(http.Protocols)
		t.h1.Protocols.SetHTTP1(true)
		return t, nil
	}
	t.h2 = newHTTP2Conns(t.h1, readIdle, pingTimeout, respHeader, cfg.hooks.WrapConn)
	return t, nil
}
