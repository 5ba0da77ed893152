package rest

import (
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// ProxyFromEnvironment returns a proxy func from HTTPS_PROXY, HTTP_PROXY and
// NO_PROXY (or their lowercase forms) as they are when it is called: an
// https request goes through HTTPS_PROXY (by CONNECT when that is an http
// URL) unless NO_PROXY names its host; requests to localhost and loopback
// addresses never use a proxy. It is what a nil Config.Proxy means.
//
// It reads the environment per call rather than once per process, as
// http.ProxyFromEnvironment does, so each client follows the environment it
// was built in.
func ProxyFromEnvironment() func(*http.Request) (*url.URL, error) {
	pick := httpproxy.FromEnvironment().ProxyFunc()
	return func(req *http.Request) (*url.URL, error) { return pick(req.URL) }
}
