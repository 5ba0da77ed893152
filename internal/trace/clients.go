package trace

import (
	"context"
	"strings"
)

type clientKey struct{}

// WithClient marks the requests sent with ctx as another client's, named
// client: a proxy's, forwarded for it. Each of their steps names the
// client (Step.Client), and a watch of theirs is told as it comes: the
// reflector consuming it is the client's, which the trace cannot wait for
// (see Tracer). What their requests reveal of the client is package
// clients' to tell.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

func clientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// maxClientReqs bounds how many requests back a Tracer remembers whose
// each was (a proxy runs for long): a late HTTP/2 frame of a request long
// over then names no client.
const maxClientReqs = 4096

// CollectionPath is the resource collection a request's path asks for, with
// a legacy /watch/ segment taken out, or "" for any other path (discovery,
// one named object): /api/v1/pods, /api/v1/namespaces/NS/pods,
// /apis/GROUP/VERSION/RESOURCE and its namespaced form. The analyses of a
// proxy's clients key what they keep by it.
func CollectionPath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var kept []string
	for i, s := range segs {
		if s == "watch" && i >= 2 && i < len(segs)-1 {
			continue
		}
		kept = append(kept, s)
	}
	n := len(kept)
	switch {
	case n >= 3 && kept[0] == "api" && (n == 3 || n == 5 && kept[2] == "namespaces"):
	case n >= 4 && kept[0] == "apis" && (n == 4 || n == 6 && kept[3] == "namespaces"):
	default:
		return ""
	}
	return "/" + strings.Join(kept, "/")
}
