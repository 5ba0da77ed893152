// Package proxy forwards any client's requests to one apiserver, with the
// credentials of podwatch's own connection, and lets podwatch watch each
// client go by: every client (a User-Agent from one remote host) gets its
// own RoundTripper beneath which the trace and the fixture recorder sit.
//
// Responses stream back as they arrive, each read passed on and flushed at
// once; nothing times a response out, so a watch lasts as long as the
// server and the client keep it. A client that stops reading holds back the
// read from the server: each stream holds at most one buffer of bytes in
// the proxy (Stats tells the most any stream held). A client's own
// Authorization header is never forwarded, and a request that cannot be
// forwarded is answered with a Kubernetes Status, never left hanging.
package proxy
