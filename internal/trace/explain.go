package trace

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/podwatch/podwatch/internal/mask"
	"github.com/podwatch/podwatch/rest/wire"
)

// The explanations below are podwatch's own account of the protocol, as
// docs/PROTOCOL.md tells it at length; each says what a value asks of the
// server in the request it is part of.

func explainRequest(typ string, protobuf bool) string {
	switch {
	case typ == "list" && protobuf:
		return "a list, asked for in protobuf: one envelope holding a PodList with the matching items and the resourceVersion they were read at"
	case typ == "list":
		return "a list: one JSON object with the matching items and the resourceVersion they were read at"
	case typ == "watch" && protobuf:
		return "a watch, asked for in protobuf: the answer stays open and streams one length-prefixed frame per change"
	}
	switch typ {
	case "watch":
		return "a watch: the answer stays open and streams one JSON event per change"
	case "watch-list":
		return "a streaming watch list: the current state as ADDED events, a bookmark that ends it, then changes, on one open answer"
	}
	return "a request podwatch does not list or watch with"
}

// explainParams explains each query parameter of a request of type typ, in
// name order, then the ones whose absence matters.
func explainParams(typ string, q url.Values) []Param {
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Param
	for _, n := range names {
		for _, v := range q[n] {
			if mask.SecretParam(n) {
				v = mask.Masked
			}
			out = append(out, Param{Name: n, Value: v, Explain: explainParam(typ, n, v, q)})
		}
	}
	if _, ok := q["resourceVersion"]; !ok && q.Get("continue") == "" && typ != "other" {
		out = append(out, Param{Name: "resourceVersion", Absent: true, Explain: unsetRV(typ)})
	}
	return out
}

func unsetRV(typ string) string {
	switch typ {
	case "list":
		return "a consistent read: the most recent state (served from the watch cache once it has caught up)"
	case "watch-list":
		return "the initial events show the most recent state"
	}
	return "the watch begins with a synthetic ADDED event for every object that exists now, then the changes"
}

func explainParam(typ, name, v string, q url.Values) string {
	watch := typ == "watch" || typ == "watch-list"
	switch name {
	case "watch":
		return "turns the request into a watch: a stream of events instead of one list"
	case "fieldSelector":
		return explainFieldSelector(v)
	case "labelSelector":
		return "only objects whose labels match " + v
	case "resourceVersion":
		if watch {
			return watchRV(typ, v, q)
		}
		return listRV(v, q)
	case "resourceVersionMatch":
		switch v {
		case "NotOlderThan":
			if typ == "watch-list" {
				return "the initial events show a state at least as new as resourceVersion (the most recent when it is unset)"
			}
			return "any state at least as new as resourceVersion will do"
		case "Exact":
			return "exactly the state at resourceVersion, or 410 if it is too old to serve"
		}
		return "how resourceVersion is matched"
	case "sendInitialEvents":
		if v == "true" {
			return "send the current state first, as ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end: \"true\"; no list request needed"
		}
		return "no initial events: only changes after resourceVersion"
	case "allowWatchBookmarks":
		return "the server may send BOOKMARK events, carrying only a newer resourceVersion, so a resumed watch need not reach back far"
	case "timeoutSeconds":
		return "the server ends the watch cleanly after " + v + "s; the client then resumes from the last resourceVersion it saw, without a relist (podwatch picks it at random so clients do not all come back at once)"
	case "limit":
		if q.Get("resourceVersion") == "0" {
			return "ignored: a list at resourceVersion 0 comes whole from the watch cache"
		}
		return "at most " + v + " items a page; a page that is not the last carries a continue token for the next"
	case "continue":
		return "the next page, read from the same snapshot as the first (the token says which); no resourceVersion may go with it"
	}
	return "not a parameter podwatch explains"
}

func explainFieldSelector(v string) string {
	if node, ok := strings.CutPrefix(v, "spec.nodeName="); ok && !strings.Contains(node, ",") {
		return "only pods bound to node " + node + ", filtered by the server: the kubelet's view"
	}
	return "only objects whose fields match " + v + ", filtered by the server"
}

func listRV(v string, q url.Values) string {
	switch match := q.Get("resourceVersionMatch"); {
	case v == "0":
		return "any state the server has at hand, from its watch cache, which may be stale"
	case match == "NotOlderThan":
		return "a state not older than " + v + ", so a relist never goes back in time"
	case match == "Exact":
		return "the state at exactly " + v
	case q.Get("limit") != "":
		return "with limit and no resourceVersionMatch, the legacy meaning: exactly " + v
	}
	return "a state not older than " + v
}

func watchRV(typ, v string, q url.Values) string {
	switch {
	case typ == "watch-list":
		return "the initial events show a state not older than " + v
	case v == "0":
		return "begins with a synthetic ADDED event for every object, from any state the server has at hand (maybe stale), then the changes"
	}
	return "only changes after " + v + ", the last state the client applied"
}

func explainResponse(typ string, resp *http.Response) string {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := "refused: the body is a Status saying why"
		if resp.StatusCode == http.StatusGone {
			msg = "410 Gone: the resourceVersion asked for is older than the server can serve; the client must list again"
		}
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			msg += "; the server asks to wait " + ra + "s before trying again"
		}
		return msg
	}
	var framing string
	switch {
	case resp.ProtoMajor == 2:
		framing = "HTTP/2: the body comes in DATA frames, no chunked encoding"
	case len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked":
		framing = "chunked: the body comes in chunks of any size, with no length known in advance; the client sees reads, not chunks"
	case resp.ContentLength >= 0:
		framing = fmt.Sprintf("a body of %d bytes", resp.ContentLength)
	default:
		framing = "a body that ends when the connection closes"
	}
	watching := typ == "watch" || typ == "watch-list"
	if f, _ := wire.ParseContentType(resp.Header.Get("Content-Type")); f == wire.Protobuf {
		framing += "; " + protobufFraming(watching)
	}
	if watching {
		return "the watch is open; " + framing + "; events follow as they happen"
	}
	return framing
}

func protobufFraming(watching bool) string {
	if watching {
		return "protobuf: each event is a frame, a 4-byte big-endian length then a WatchEvent whose object is an envelope"
	}
	return `protobuf: one envelope, the magic k8s\x00 then a runtime.Unknown holding apiVersion, kind and the object's message`
}

func explainEnd(typ string, e *BodyEnd) string {
	switch e.How {
	case "eof":
		switch {
		case e.Status != nil || (typ != "watch" && typ != "watch-list"):
		default:
			return "the server ended the watch (its timeoutSeconds ran out, or it is going away)"
		}
		return "the whole body arrived"
	case "closed":
		return "the client closed the body, or gave the request up, before the server ended it"
	case "error-event":
		return "the ERROR event ends the watch: the server closes it after one, and the client reads no further"
	}
	return "the body broke off: a read failed"
}

func explainEvent(e *Event) string {
	switch e.Type {
	case "ADDED":
		return "an object now matches: created, or bound to this node"
	case "MODIFIED":
		if e.Deleting {
			return "deletionTimestamp is set: a graceful delete has begun; the pod stays until its kubelet confirms, or it is deleted at once"
		}
		return "the object changed; the event carries all of it, not a patch"
	case "DELETED":
		return "the object is gone; the event carries its last state"
	case "BOOKMARK":
		if e.Annotations["k8s.io/initial-events-end"] == "true" {
			return "ends the initial events: the state at this resourceVersion is complete"
		}
		return "no change: only a newer resourceVersion to resume from; nothing is stored"
	case "ERROR":
		if e.Status != nil && e.Status.Code == http.StatusGone {
			return "the resourceVersion asked for is too old (410): the watch ends and the client must list again"
		}
		return "the server ends the watch with this Status"
	}
	return "an event type podwatch does not know"
}

func explainInitial(e *Event) string {
	if e.Type == "ADDED" {
		return "part of the initial state: gathered, applied with the rest as one replace at the closing bookmark"
	}
	return explainEvent(e)
}
