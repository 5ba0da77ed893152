package proxy

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Client is one client of the proxy as it is told apart: a User-Agent from
// one remote host.
type Client struct {
	UserAgent string
	Host      string // the remote address without its port
	// Name is unique among the proxy's clients and safe as a file name:
	// the host and the User-Agent's letters, digits, dots and dashes.
	Name string
}

// String is how the trace names the client.
func (c Client) String() string {
	ua := c.UserAgent
	if ua == "" {
		ua = "(no User-Agent)"
	}
	return ua + " from " + c.Host
}

type clientKey struct{ userAgent, host string }

func keyOf(r *http.Request) clientKey {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return clientKey{userAgent: r.UserAgent(), host: host}
}

// maxNameLen keeps a client's folder name well under any file system's limit.
const maxNameLen = 80

// fileName turns k into a name made of [A-Za-z0-9._-] only.
func (k clientKey) fileName() string {
	var b strings.Builder
	for _, r := range k.host + "_" + k.userAgent {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_.")
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	if name == "" {
		name = "client"
	}
	return name
}

// uniqueName is base, or base-N for the first N from 2 that taken lacks.
func uniqueName(base string, taken map[string]bool) string {
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	return name
}
