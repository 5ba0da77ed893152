package check

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/wire"
)

// framingEvents is how many events the framing checks read at most.
const framingEvents = 5

// framingWatch is a watch from unset resourceVersion (so that every
// existing pod comes as an event) with bookmarks, read for a few events;
// with Options.Write a change makes sure there is one.
func (e *env) framingWatch(ctx context.Context, c *rest.Client) watched {
	var made changes
	return e.watch(ctx, watchSpec{
		client: c,
		mod:    func(r *rest.Request) { r.AllowWatchBookmarks(true) },
		onOpen: e.causeChanges(1, &made),
		until:  func(seen) bool { return false },
		window: e.watchTimeout(),
	}.stopAfter(framingEvents))
}

// stopAfter makes the watch stop reading after n events.
func (s watchSpec) stopAfter(n int) watchSpec {
	count, until := 0, s.until
	s.until = func(ev seen) bool {
		count++
		return count >= n || (until != nil && until(ev))
	}
	return s
}

// checkFramingStream: a watch body is streamed, in chunks (HTTP/1.1) or
// DATA frames (HTTP/2), never with a length known up front.
func checkFramingStream(ctx context.Context, e *env) Outcome {
	const req = "a watch answer streams: over HTTP/1.1 with Transfer-Encoding: chunked, over HTTP/2 as DATA frames; never a Content-Length"
	w := e.framingWatch(ctx, e.json)
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	switch x := w.x; {
	case x.ContentLength >= 0:
		return fail(req, fmt.Sprintf("the watch answer has Content-Length %d", x.ContentLength), x)
	case strings.HasPrefix(x.Proto, "HTTP/2"):
		return pass("%s: DATA frames", x.Proto).with(x)
	case slices.Contains(strings.Split(x.TransferEncoding, ","), "chunked"):
		return pass("%s, Transfer-Encoding: chunked", x.Proto).with(x)
	default:
		return fail(req, fmt.Sprintf("%s without Transfer-Encoding: chunked (%q)", x.Proto, x.TransferEncoding), x)
	}
}

// checkFramingOneEventPerObject: each JSON value on a watch stream is one
// event: an object with a type and an object, nothing else.
func checkFramingOneEventPerObject(ctx context.Context, e *env) Outcome {
	const req = `each JSON value on a watch stream is one event, {"type":T,"object":{...}}: an object of exactly those two members, T one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR`
	w := e.framingWatch(ctx, e.json)
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	if w.endErr != nil {
		return fail(req, fmt.Sprintf("after %d events the stream does not frame as events: %v", len(w.events), w.endErr), w.at(len(w.events)-1))
	}
	for i, s := range w.events {
		if why := eventMembers(s.ev.Raw); why != "" {
			return fail(req, fmt.Sprintf("event %d %s", i, why), w.at(i))
		}
	}
	if len(w.events) == 0 {
		return notApplicable("no event came in %s to examine (no pods, no bookmark; --write makes one)", e.watchTimeout()).with(w.x)
	}
	return pass("%d events, each one object of type and object", len(w.events)).with(w.x)
}

// eventMembers says what is wrong with an event's members, "" if nothing.
func eventMembers(raw []byte) string {
	var r jsonx.Reader
	r.Reset(raw)
	var members []string
	objectIsObject := true
	r.Object(func(k []byte) {
		members = append(members, string(k))
		if string(k) == "object" && r.Kind() != '{' {
			objectIsObject = false
		}
		r.Skip()
	})
	switch {
	case r.Err() != nil:
		return "is not one JSON object: " + r.Err().Error()
	case !r.AtEnd():
		return "has data after its object"
	case !objectIsObject:
		return "has an object member that is not an object"
	}
	slices.Sort(members)
	if !slices.Equal(members, []string{"object", "type"}) {
		return fmt.Sprintf("has members %q, not type and object", members)
	}
	return ""
}

// mediaType is a Content-Type's type, without parameters.
func mediaType(ct string) (string, map[string]string) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", nil
	}
	return mt, params
}

// sameMediaType reports whether Content-Type got is want, a wire format's
// label: the same media type and the same stream parameter, whatever else
// (a charset) it carries.
func sameMediaType(got, want string) bool {
	gt, gp := mediaType(got)
	wt, wp := mediaType(want)
	return gt != "" && gt == wt && gp["stream"] == wp["stream"]
}

// checkContentTypeJSON: asked for JSON, lists and watches answer
// application/json.
func checkContentTypeJSON(ctx context.Context, e *env) Outcome {
	const req = "asked for application/json, a list answers Content-Type application/json, and a watch application/json (the apiserver's label for its JSON event stream)"
	l := e.list(ctx, e.json, nil)
	if l.err != nil {
		return requestFailed(req, "the list", l.err, l.x)
	}
	if mt, _ := mediaType(l.x.ContentType); mt != wire.ContentTypeJSON {
		return fail(req, fmt.Sprintf("the list answered Content-Type %q", l.x.ContentType), l.x)
	}
	w := e.framingWatch(ctx, e.json)
	if w.err != nil {
		return requestFailed(req, "the watch", w.err, w.x)
	}
	if mt, _ := mediaType(w.x.ContentType); mt != wire.ContentTypeJSON {
		return fail(req, fmt.Sprintf("the watch answered Content-Type %q", w.x.ContentType), w.x)
	}
	return pass("list %q, watch %q", l.x.ContentType, w.x.ContentType).with(l.x, w.x)
}

// checkContentTypeProtobuf: a server that offers protobuf answers lists in
// it and watches as its length-prefixed stream, both readable.
func checkContentTypeProtobuf(ctx context.Context, e *env) Outcome {
	return checkBinaryFormat(ctx, e, e.proto, wire.Protobuf, "protobuf")
}

// checkContentTypeCBOR: asked for CBOR, a server that offers it answers a
// list in CBOR (wire.ContentTypeCBOR) and a watch as a sequence of items
// (wire.ContentTypeCBORSeq).
func checkContentTypeCBOR(ctx context.Context, e *env) Outcome {
	return checkBinaryFormat(ctx, e, e.cbor, wire.CBOR, "CBOR")
}

// checkBinaryFormat asks c, a client of format f (called name), for a list
// and a watch: each must come in f, the watch labelled exactly as the
// apiserver labels f's watches, and be readable by podwatch's decoders. A
// server that answers in another format, or 406, does not offer f.
func checkBinaryFormat(ctx context.Context, e *env, c *rest.Client, f wire.Format, name string) Outcome {
	req := "asked for " + f.ContentType() + ", a server that offers it answers a list in it and a watch as " + f.WatchContentType() + ", each readable; one that does not answers JSON or 406"
	l := e.list(ctx, c, nil)
	var cte *rest.ContentTypeError
	switch {
	case errors.As(l.err, &cte):
		return notApplicable("the server does not offer %s for pods: asked for it, a list answered %q", name, cte.Got).with(l.x)
	case l.err != nil && l.x.Status == http.StatusNotAcceptable:
		return notApplicable("the server does not offer %s for pods: 406", name).with(l.x)
	}
	if o, bad := badList(req, l); bad {
		return o
	}
	w := e.framingWatch(ctx, c)
	if w.err != nil {
		return requestFailed(req, "the "+name+" watch", w.err, w.x)
	}
	if !sameMediaType(w.x.ContentType, f.WatchContentType()) {
		return fail(req, fmt.Sprintf("the %s watch answered Content-Type %q", name, w.x.ContentType), w.x)
	}
	if w.endErr != nil {
		return fail(req, fmt.Sprintf("after %d events the %s stream does not frame: %v", len(w.events), name, w.endErr), w.at(len(w.events)-1))
	}
	return pass("list of %d pods and %d watch events read as %s", len(l.list.Items), len(w.events), name).with(l.x, w.x)
}
