package rest

import (
	"net/url"
	"strconv"
	"strings"
)

// Request builds one API request. Its setters change the Request and return it for
// chaining; a Request is not safe for concurrent use while being built, but once
// built it may be sent any number of times.
type Request struct {
	c         *Client
	verb      string
	absPath   string
	prefix    []string
	namespace string
	resource  string
	name      string
	params    url.Values
	body      []byte
	bodyType  string // the body's Content-Type when not application/json
}

const defaultAbsPath = "/api/v1"

func newRequest(c *Client, verb string) *Request {
	return &Request{c: c, verb: verb, absPath: defaultAbsPath, params: url.Values{}}
}

// Verb sets the HTTP method (GET by default).
func (r *Request) Verb(method string) *Request { r.verb = method; return r }

// Body sets a JSON request body, sent with Content-Type application/json. The
// request keeps b (it is sent again on a retry): the caller must not change it.
func (r *Request) Body(b []byte) *Request { r.body = b; return r }

// AbsPath sets the API root the path starts from, "/api/v1" by default
// ("/apis/apps/v1" for a group).
func (r *Request) AbsPath(p string) *Request { r.absPath = "/" + strings.Trim(p, "/"); return r }

// Prefix adds path segments between the API root and the namespace:
// Prefix("watch") gives the legacy /api/v1/watch/namespaces/NS/pods.
func (r *Request) Prefix(segments ...string) *Request {
	r.prefix = append(r.prefix, segments...)
	return r
}

// Namespace narrows the request to one namespace; "" means all namespaces.
func (r *Request) Namespace(ns string) *Request { r.namespace = ns; return r }

// Resource sets the resource, such as "pods".
func (r *Request) Resource(res string) *Request { r.resource = res; return r }

// Name addresses one object of the resource.
func (r *Request) Name(n string) *Request { r.name = n; return r }

// Param adds a query parameter; it may be given more than once.
func (r *Request) Param(k, v string) *Request { r.params.Add(k, v); return r }

func (r *Request) set(k, v string) *Request { r.params.Set(k, v); return r }

func (r *Request) setBool(k string, b bool) *Request {
	if b {
		return r.set(k, "true")
	}
	r.params.Del(k)
	return r
}

// FieldSelector sets fieldSelector, such as OneTermEqualSelector("spec.nodeName", node).
func (r *Request) FieldSelector(s string) *Request { return r.set("fieldSelector", s) }

// LabelSelector sets labelSelector.
func (r *Request) LabelSelector(s string) *Request { return r.set("labelSelector", s) }

// ResourceVersion sets resourceVersion: on a list, how fresh the answer must be; on
// a watch, the version to start after.
func (r *Request) ResourceVersion(rv string) *Request { return r.set("resourceVersion", rv) }

// ResourceVersionMatch sets resourceVersionMatch ("NotOlderThan" or "Exact").
func (r *Request) ResourceVersionMatch(m string) *Request {
	return r.set("resourceVersionMatch", m)
}

// TimeoutSeconds asks the server to end a watch cleanly after n seconds.
func (r *Request) TimeoutSeconds(n int64) *Request {
	return r.set("timeoutSeconds", strconv.FormatInt(n, 10))
}

// Limit asks for at most n items per list page.
func (r *Request) Limit(n int64) *Request { return r.set("limit", strconv.FormatInt(n, 10)) }

// Continue asks for the list page after the one that returned tok.
func (r *Request) Continue(tok string) *Request { return r.set("continue", tok) }

// AllowWatchBookmarks asks for BOOKMARK events; false removes the parameter.
func (r *Request) AllowWatchBookmarks(b bool) *Request { return r.setBool("allowWatchBookmarks", b) }

// SendInitialEvents sets sendInitialEvents to b; unlike the other switches, false
// is sent too, since the server treats an explicit false differently from none.
func (r *Request) SendInitialEvents(b bool) *Request {
	return r.set("sendInitialEvents", strconv.FormatBool(b))
}

// Watch makes the request a watch (watch=true); false removes the parameter.
func (r *Request) Watch(b bool) *Request { return r.setBool("watch", b) }

// isWatch reports whether the request opens a watch, by parameter or legacy path.
// Watches are never retried and never get a timeout.
func (r *Request) isWatch() bool {
	return r.params.Get("watch") == "true" || (len(r.prefix) > 0 && r.prefix[0] == "watch")
}

// URL returns the full URL the request goes to.
func (r *Request) URL() *url.URL {
	segs := strings.Split(strings.Trim(r.absPath, "/"), "/")
	segs = append(segs, r.prefix...)
	if r.namespace != "" {
		segs = append(segs, "namespaces", r.namespace)
	}
	for _, s := range []string{r.resource, r.name} {
		if s != "" {
			segs = append(segs, s)
		}
	}
	u := *r.c.base
	var p, raw strings.Builder
	p.WriteString(u.Path)
	raw.WriteString(u.EscapedPath())
	for _, s := range segs {
		if s == "" {
			continue
		}
		p.WriteString("/" + s)
		raw.WriteString("/" + url.PathEscape(s))
	}
	u.Path, u.RawPath = p.String(), raw.String()
	u.RawQuery = r.params.Encode()
	return &u
}
