package kubeconfig

import (
	"fmt"
	"io"
	"net/http"
)

type execTransport struct {
	e    *ExecCredentials
	base http.RoundTripper
}

func (t *execTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	c, err := t.e.get(ctx)
	if err != nil {
		closeRequestBody(req)
		return nil, err
	}
	resp, err := t.base.RoundTrip(authorize(req, c))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	retry := replayable(req)
	if retry {
		// Done with this answer: reading it to the end lets its connection
		// go idle, so a certificate rotation can close it.
		drain(resp)
	}
	fresh, err := t.e.refresh(ctx, c)
	if err != nil {
		if !retry {
			resp.Body.Close()
		}
		return nil, fmt.Errorf("server answered 401 Unauthorized, and refreshing the credential failed: %w", err)
	}
	if !retry {
		return resp, nil
	}
	r := req.Clone(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("replay request body after 401: %w", err)
		}
		r.Body = body
	}
	return t.base.RoundTrip(authorize(r, fresh))
}

func (t *execTransport) CloseIdleConnections() { closeIdle(t.base) }

// authorize returns req with c's token, cloned so the caller's request is not
// changed; a certificate-only credential travels in TLS and needs no header.
func authorize(req *http.Request, c *credential) *http.Request {
	if c.token == "" {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+c.token)
	return r
}

func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// drain reads a little of a response we are done with so that its connection
// can be reused, then closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
