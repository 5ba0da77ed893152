// Package rest is podwatch's hand-written Kubernetes REST client: a Config (host,
// TLS, bearer tokens), a Client, a request builder for list and watch, and the typed
// StatusError every non-2xx answer becomes.
//
// DecodeList decodes a streamed list answer item by item, handing each item's
// bytes to a meta.DecodeFunc, so a list of thousands of pods never sits in memory
// as one body. EscapeFieldValue and OneTermEqualSelector build field selectors.
package rest
