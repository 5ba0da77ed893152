// Package rest is podwatch's hand-written Kubernetes REST client: a Config (host,
// TLS, bearer tokens), a Client, a request builder for list and watch, and the typed
// StatusError every non-2xx answer becomes.
//
// DecodeList decodes a streamed list answer item by item, handing each item to
// a meta.Codec, so a list of thousands of pods never sits in memory as one body.
// EscapeFieldValue and OneTermEqualSelector build field selectors.
//
// Config.ContentType makes a Client speak protobuf, the kubelet's format, or
// CBOR; Client.Format says which, and DecodeList reads lists in each with the
// same guarantees, a protobuf item decoded from its message when the codec can
// (api.Codec does) and transcoded to the JSON the codec reads otherwise.
//
// Over TLS a client speaks HTTP/2 where the server chooses it in ALPN, and
// HTTP/1.1 otherwise or with Config.DisableHTTP2. HTTP/2 is always
// golang.org/x/net's, with its connection pool and its health pings
// (Config.HTTP2ReadIdleTimeout, HTTP2PingTimeout); every connection of
// either protocol is made by net/http's Transport (the proxy, TLS, the
// client certificate of the moment).
//
// A client times its waits and guards on the wall clock. podwatch's replay
// runs one, and cache's reflector and watchdog with it, on the replay's own
// time, through a hook of podwatch's own that programs have no need of.
package rest
