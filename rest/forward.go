package rest

import (
	"fmt"
	"net/http"
)

// forwarder sends a request of anyone's making the way c sends its own
// (resthook.Forwarder tells the whole contract): over c's transport and
// with c's bearer token in place of any Authorization it carries.
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
