package rest

import (
	"fmt"
	"net/http"
)

// RoundTripper returns an http.RoundTripper that sends a request of anyone's
// making the way c sends its own: over c's transport (TLS with certificate
// reload, the proxy from the environment, HTTP/2 with health pings, every
// Config.WrapTransport layer, exec credentials included) and with c's bearer
// token. Any Authorization the request carries is replaced by c's, or dropped
// when c has none: a request forwarded for someone else never travels with
// their credential. The request's URL must already name c's server (see
// Host); nothing else is changed, and no retry or timeout is added. A proxy
// forwards through it.
func (c *Client) RoundTripper() http.RoundTripper { return forwarder{c} }

type forwarder struct{ c *Client }

func (f forwarder) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := f.c.token.token()
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on failure
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	out := req.Clone(req.Context()) // a RoundTripper must not change the request
	out.Header.Del("Authorization")
	if tok != "" {
		out.Header.Set("Authorization", "Bearer "+tok)
	}
	return f.c.http.Transport.RoundTrip(out)
}
