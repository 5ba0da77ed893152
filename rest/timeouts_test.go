package rest

import (
	"net/http"
	"testing"
	"time"
)

// Every request a Client sends goes through the transport NewClient builds, so
// its connection timeouts bound every request: dialing, the TLS handshake, and
// the wait for response headers (watches included; the default 60s, a setting,
// or none). Nothing bounds reading a body: a watch may rightly stay silent.
func TestTimeoutsOnEveryRequest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		wantHeader time.Duration
	}{
		{"defaults", Config{Host: "https://h"}, 60 * time.Second},
		{"header timeout set", Config{Host: "https://h", ResponseHeaderTimeout: 5 * time.Second}, 5 * time.Second},
		{"header timeout off", Config{Host: "https://h", ResponseHeaderTimeout: -1}, 0},
		{"HTTP/1.1 only", Config{Host: "https://h", DisableHTTP2: true}, 60 * time.Second},
		{"plain http", Config{Host: "http://h"}, 60 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.cfg)
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			if c.http.Timeout != 0 {
				t.Fatalf("http.Client.Timeout = %v: it would cut every long watch", c.http.Timeout)
			}
			built, ok := c.http.Transport.(*transport)
			if !ok {
				t.Fatalf("transport is %T, want the one NewClient builds", c.http.Transport)
			}
			tr := built.h1
			if tr.DialContext == nil || dialTimeout != 30*time.Second {
				t.Fatalf("dial: DialContext set %t, timeout %v; want a dialer bounded at 30s", tr.DialContext != nil, dialTimeout)
			}
			if tr.TLSHandshakeTimeout != 10*time.Second {
				t.Fatalf("TLSHandshakeTimeout = %v, want 10s", tr.TLSHandshakeTimeout)
			}
			if tr.ResponseHeaderTimeout != tc.wantHeader {
				t.Fatalf("ResponseHeaderTimeout = %v, want %v", tr.ResponseHeaderTimeout, tc.wantHeader)
			}
			if tc.cfg.DisableHTTP2 {
				if built.h2 != nil || tr.Protocols == nil || tr.Protocols.HTTP2() {
					t.Fatalf("HTTP/2 set up (%v, protocols %v) although disabled", built.h2 != nil, tr.Protocols)
				}
				return
			}
			h2 := built.h2.t2
			if h2.ReadIdleTimeout != 30*time.Second || h2.PingTimeout != 15*time.Second {
				t.Fatalf("HTTP/2 health pings after %v, dropped after %v; want a ping after 30s of silence, dropped after 15s", h2.ReadIdleTimeout, h2.PingTimeout)
			}
			if built.h2.headerTimeout != tc.wantHeader {
				t.Fatalf("HTTP/2 response header timeout %v, want %v", built.h2.headerTimeout, tc.wantHeader)
			}
		})
	}
}

// A WrapTransport layer sits above the same transport: the bounds still hold.
func TestTimeoutsUnderWrapTransport(t *testing.T) {
	var inner http.RoundTripper
	c, err := NewClient(Config{Host: "https://h", WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		inner = rt
		return rt
	}})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	tr, ok := inner.(*transport)
	if !ok || tr.h1.TLSHandshakeTimeout == 0 || tr.h1.ResponseHeaderTimeout == 0 || tr.h2.headerTimeout == 0 || c.http.Timeout != 0 {
		t.Fatalf("wrapped transport %T without its timeouts", inner)
	}
}
