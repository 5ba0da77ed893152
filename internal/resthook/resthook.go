// Package resthook is how podwatch's own tools reach into a rest.Client
// further than rest's public API lets a program: a replay runs the client
// on its own clock, the trace taps each HTTP/2 connection, the proxy
// forwards other clients' requests the way the client sends its own, and
// tests choose where connections go.
//
// Why a package of its own, and not fields of rest.Config: each hook names
// something a program that watches pods has no use for, and some name types
// only podwatch may change (package timing's clock). Public fields would
// make them promises of the library; here they stay podwatch's to change.
//
// Why this shape: rest imports this package, never the other way, so that
// rest's public API can hold the hooks in an unexported field and still
// build nothing else. The price is that this package cannot name rest's
// types: On, ClockOf and Forwarder take a *rest.Config or a *rest.Client as
// any, and rest gives them its side in its init (Install). Any other value
// panics: only podwatch's code calls them, always with rest's own.
package resthook

import (
	"context"
	"net"
	"net/http"

	"github.com/podwatch/podwatch/internal/timing"
)

// Hooks are what a tool attaches to a rest.Config before rest.NewClient.
// The zero Hooks change nothing. On a Config given its own Transport only
// Clock applies: the others are about the connections NewClient's own
// transport makes.
type Hooks struct {
	// Clock times the client's own waits and guards: the wait before a
	// retry (Retry-After), Config.Timeout and the wait for headers under it;
	// nil is the wall clock. A replay passes the clock its server runs on,
	// so that the client's waits keep the recording's pace, and cache's
	// reflector and watchdog run on it too (see ClockOf). What the transport
	// times itself (ResponseHeaderTimeout, the HTTP/2 pings, dialing) stays
	// on the wall clock: it guards the connection on this machine, and a
	// healthy run never waits on it.
	Clock timing.Clock

	// WrapConn, when set, stands between each connection the server
	// chose HTTP/2 on and the HTTP/2 client, after TLS: it returns the
	// connection HTTP/2 then reads and writes, which must pass every byte
	// through unchanged (the trace's tap tees them into a frame reader).
	// c has the ConnectionState method of a *tls.Conn; what it returns
	// should have it too, for the response's TLS state. authority is the
	// server's host:port.
	WrapConn func(authority string, c net.Conn) net.Conn

	// WrapDial, when set, wraps the dialer of every TCP connection (to the
	// server or its proxy): tests send a name to loopback with it.
	WrapDial func(DialFunc) DialFunc
}

// DialFunc is the shape of a dialer, net.Dialer's DialContext.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Impl is rest's side of this package's functions, each given rest's own
// type as any.
type Impl struct {
	On        func(cfg any) *Hooks
	ClockOf   func(client any) timing.Clock
	Forwarder func(client any) http.RoundTripper
}

var impl Impl

// Install gives this package rest's side; rest calls it once, from its
// init, before any podwatch code can call the functions below.
func Install(i Impl) { impl = i }

// On returns the hooks of cfg, a *rest.Config, to read or set before
// rest.NewClient. A copy of the Config carries a copy of its hooks.
func On(cfg any) *Hooks { return impl.On(cfg) }

// ClockOf is the clock client, a *rest.Client, runs on: its Hooks.Clock,
// or the wall clock. Whatever is built on the client times itself on it
// (cache.ListWatch's watchdog, a reflector over it).
func ClockOf(client any) timing.Clock { return impl.ClockOf(client) }

// Forwarder returns an http.RoundTripper that sends a request of anyone's
// making the way client, a *rest.Client, sends its own: over its transport
// (TLS with certificate reload, the proxy from the environment, HTTP/2 with
// health pings, every Config.WrapTransport layer, exec credentials
// included) and with its bearer token. Any Authorization the request
// carries is replaced by the client's, or dropped when it has none: a
// request forwarded for someone else never travels with their credential.
// The request's URL must already name the client's server (see
// rest.Client.Host); nothing else is changed, and no retry or timeout is
// added. podwatch's proxy forwards through it.
func Forwarder(client any) http.RoundTripper { return impl.Forwarder(client) }
