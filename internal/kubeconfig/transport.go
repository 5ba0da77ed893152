package kubeconfig

import (
	"net/http"
	"sort"
	"strings"
)

// wrapper returns the WrapTransport for cc: exec credentials innermost, so
// that an Authorization header set by anything outside (a static token) is
// left alone, then basic auth, then impersonation headers.
func wrapper(cc *ClientConfig) func(http.RoundTripper) http.RoundTripper {
	creds, user, pass, imp := cc.Credentials, cc.Username, cc.Password, cc.Impersonate
	return func(rt http.RoundTripper) http.RoundTripper {
		if creds != nil {
			rt = creds.WrapTransport(rt)
		}
		if user != "" || pass != "" {
			rt = &basicAuth{base: rt, user: user, pass: pass}
		}
		if !imp.empty() {
			rt = &impersonator{base: rt, h: impersonationHeaders(imp)}
		}
		return rt
	}
}

type closeIdler interface{ CloseIdleConnections() }

func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(closeIdler); ok {
		c.CloseIdleConnections()
	}
}

// basicAuth sends a username and password unless the request has its own
// Authorization header.
type basicAuth struct {
	base       http.RoundTripper
	user, pass string
}

func (t *basicAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	// A RoundTripper must not change the caller's request.
	r := req.Clone(req.Context())
	r.SetBasicAuth(t.user, t.pass)
	return t.base.RoundTrip(r)
}

func (t *basicAuth) CloseIdleConnections() { closeIdle(t.base) }

// impersonator adds the Impersonate-* headers.
type impersonator struct {
	base http.RoundTripper
	h    http.Header
}

func (t *impersonator) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, vs := range t.h {
		r.Header[k] = append([]string(nil), vs...)
	}
	return t.base.RoundTrip(r)
}

func (t *impersonator) CloseIdleConnections() { closeIdle(t.base) }

func impersonationHeaders(imp Impersonation) http.Header {
	h := http.Header{}
	if imp.UserName != "" {
		h.Set("Impersonate-User", imp.UserName)
	}
	if imp.UID != "" {
		h.Set("Impersonate-Uid", imp.UID)
	}
	for _, g := range imp.Groups {
		h.Add("Impersonate-Group", g)
	}
	keys := make([]string, 0, len(imp.Extra))
	for k := range imp.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := "Impersonate-Extra-" + escapeExtraKey(k)
		for _, v := range imp.Extra[k] {
			h.Add(name, v)
		}
	}
	return h
}

// escapeExtraKey percent-encodes an extra key so it can be part of a header
// name (keys such as "example.com/scopes" are common); the apiserver decodes
// it back.
func escapeExtraKey(k string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		if isTokenChar(c) && c != '%' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
