package trace

import (
	"net"
	"net/http"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/resthook"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
)

// Instrument is a Tracer wired into what it traces, as one value to hand
// around: the client's rest.Config (Configure: requests, responses, body
// reads, and a ConnTap's HTTP/2 frames), the reflector (Observe: its
// decisions), the store it fills (WrapStore: each change and replace, as it
// is applied) and the undelta store's pushes (Pushed). T is the type of the
// objects watched.
//
// The zero Instrument (or one made from a nil Tracer) leaves everything as
// it is: Configure adds nothing, WrapStore returns the store itself, Observe
// and Pushed return at once.
type Instrument[T meta.Object] struct{ t *Tracer }

// NewInstrument returns the Instrument that feeds t; a nil t gives the zero
// Instrument.
func NewInstrument[T meta.Object](t *Tracer) Instrument[T] { return Instrument[T]{t: t} }

// Configure wires the trace into cfg. Its RoundTripper goes right beneath
// whatever cfg.WrapTransport adds already (credentials, which it masks), so
// that it sees requests as they are finally sent; layers added beneath that
// afterwards (closer to the network) go beneath the trace too. The Tracer's
// ConnTap, if it has one (resthook.Hooks.WrapConn), wraps what any earlier
// WrapConn hook returns, so it sees the bytes as HTTP/2 writes and reads
// them. Call it once, before rest.NewClient.
func (in Instrument[T]) Configure(cfg *rest.Config) {
	t := in.t
	if t == nil {
		return
	}
	outer := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		rt = t.transport(rt)
		if outer != nil {
			rt = outer(rt)
		}
		return rt
	}
	if t.tap == nil {
		return
	}
	hooks := resthook.On(cfg)
	prev := hooks.WrapConn
	hooks.WrapConn = func(authority string, c net.Conn) net.Conn {
		if prev != nil {
			c = prev(authority, c)
		}
		return t.tap.WrapConn(authority, c)
	}
}

// Observe tells a reflector step (a cache.ReflectorOptions.Observe hook, on
// the reflector's goroutine).
func (in Instrument[T]) Observe(st cache.Step) {
	if in.t != nil {
		in.t.observe(st)
	}
}

// WrapStore wraps the store a reflector fills, so that the trace tells each
// change (with the event and the reads that brought it) and each replace
// just before the store takes it.
func (in Instrument[T]) WrapStore(s cache.Store[T]) cache.Store[T] {
	return wrapStore(in.t, s)
}

// Pushed tells one push of an undelta store (a cache.PushFunc's arguments):
// how many objects, at which resourceVersion, and what changed since the last
// push. Call it from the PushFunc, before handing the set on.
func (in Instrument[T]) Pushed(items []T, rv string) {
	recordPush(in.t, items, rv)
}
