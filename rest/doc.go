// Package rest is podwatch's hand-written Kubernetes REST client: a Config (host,
// TLS, bearer tokens), a Client, a request builder for list and watch, and the typed
// StatusError every non-2xx answer becomes.
package rest
