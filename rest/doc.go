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
// Config.Clock (a Clock; WallClock by default) times the client's waits and
// guards; cache's reflector and watchdog run on the same one, so a replay
// can run a whole client on its own time.
package rest
