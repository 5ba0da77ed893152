// Package mask is podwatch's one rule for what of a credential may be shown:
// in a trace, the -v HTTP log and its curl lines, the check battery's
// evidence, the proxy's recordings and a run's recorded command line. It is
// a leaf, so that each of them can use it without importing another.
package mask

import (
	"net/http"
	"net/url"
	"strings"
)

// Masked stands in for a credential.
const Masked = "<masked>"

// Headers with credentials: of Authorization only the scheme is shown (it
// tells a bearer token from basic auth); cookies are hidden whole.
var (
	authHeaders   = map[string]bool{"Authorization": true, "Proxy-Authorization": true}
	cookieHeaders = map[string]bool{"Cookie": true, "Set-Cookie": true}
)

// Header returns the value of header name as it may be shown.
func Header(name, value string) string {
	name = http.CanonicalHeaderKey(name)
	switch {
	case authHeaders[name]:
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + Masked
		}
		return Masked
	case cookieHeaders[name]:
		return Masked
	}
	return value
}

// secretParams are query parameters that could carry a credential. The
// apiserver takes none, but a URL from a user might.
var secretParams = map[string]bool{"access_token": true, "token": true, "password": true}

// SecretParam reports whether query parameter name could carry a
// credential.
func SecretParam(name string) bool { return secretParams[strings.ToLower(name)] }

// Query returns a raw query with the value of every parameter that could
// carry a credential masked; the rest is left byte for byte.
func Query(raw string) string {
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, _, _ := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && SecretParam(name) {
			parts[i], changed = k+"="+Masked, true
		}
	}
	if !changed {
		return raw
	}
	return strings.Join(parts, "&")
}

// SecretFlag reports whether a command-line flag's value is a credential,
// never recorded.
func SecretFlag(name string) bool {
	name = strings.ToLower(name)
	return strings.Contains(name, "token") || strings.Contains(name, "password") || strings.Contains(name, "secret")
}

// URL masks the password of a URL given with one (https://u:p@host); any
// other string is left as it is.
func URL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}
