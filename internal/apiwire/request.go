package apiwire

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// PodsRequest is a list or watch of pods as the apiserver reads it from the
// path and query. Parsing refuses what the apiserver refuses, with its Status.
type PodsRequest struct {
	Namespace         string // "" for every namespace
	Watch             bool   // ?watch (any value but false or 0) or the /api/v1/watch/ path
	ResourceVersion   string // "" unset, "0", or a number
	Match             string // resourceVersionMatch: "", NotOlderThan or Exact
	Continue          string // the raw token, "" when none: a server decodes its own (DecodeContinue)
	Limit             int64  // 0: no limit (a negative limit is ignored, as by the apiserver)
	SendInitialEvents bool
	AllowBookmarks    bool
	Timeout           time.Duration // 0 when the client gave none
	FieldSelector     []Term
	LabelSelector     string // kept verbatim: podwatch's servers match it whole
}

// Term is one requirement of a field selector.
type Term struct {
	Field, Op, Value string // Op is "=" (for = and ==) or "!="
}

func (t Term) String() string { return t.Field + t.Op + t.Value }

// podFields are the field selectors the apiserver supports for pods.
var podFields = map[string]bool{
	"metadata.name": true, "metadata.namespace": true, "spec.nodeName": true, "spec.restartPolicy": true,
	"spec.schedulerName": true, "spec.serviceAccountName": true, "spec.hostNetwork": true,
	"status.phase": true, "status.podIP": true, "status.podIPs": true, "status.nominatedNodeName": true,
}

// RoutePods reads the path of a pods list or watch: /api/v1/pods,
// /api/v1/namespaces/NS/pods, and both under /api/v1/watch/. ok is false for
// any other path.
func RoutePods(path string) (ns string, watchPath, ok bool) {
	rest, found := strings.CutPrefix(path, "/api/v1/")
	if !found {
		return "", false, false
	}
	if r, w := strings.CutPrefix(rest, "watch/"); w {
		rest, watchPath = r, true
	}
	if rest == "pods" {
		return "", watchPath, true
	}
	parts := strings.Split(rest, "/")
	if len(parts) == 3 && parts[0] == "namespaces" && parts[1] != "" && parts[2] == "pods" {
		return parts[1], watchPath, true
	}
	return "", false, false
}

// ParsePods reads a GET of pods. A path that is not a pods collection gets
// NotFound; a malformed or refused option the apiserver's 400, 422 or 500.
func ParsePods(path string, q url.Values) (PodsRequest, *Status) {
	ns, watchPath, ok := RoutePods(path)
	if !ok {
		st := NotFound()
		return PodsRequest{}, &st
	}
	r := PodsRequest{Namespace: ns, Watch: watchPath || isTrue(q, "watch"),
		ResourceVersion: q.Get("resourceVersion"), Match: q.Get("resourceVersionMatch"),
		Continue: q.Get("continue"), SendInitialEvents: isTrue(q, "sendInitialEvents"),
		AllowBookmarks: isTrue(q, "allowWatchBookmarks"), LabelSelector: q.Get("labelSelector")}
	if st := r.parseNumbers(q); st != nil {
		return PodsRequest{}, st
	}
	sel, st := ParseFieldSelector(q.Get("fieldSelector"))
	if st != nil {
		return PodsRequest{}, st
	}
	r.FieldSelector = sel
	if st := r.validate(); st != nil {
		return PodsRequest{}, st
	}
	return r, nil
}

// isTrue reads a boolean option as the apiserver does: set to anything but
// false or 0.
func isTrue(q url.Values, name string) bool {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return false
	}
	return v[0] != "" && v[0] != "false" && v[0] != "0"
}

func (r *PodsRequest) parseNumbers(q url.Values) *Status {
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			st := BadRequest(err.Error())
			return &st
		}
		r.Limit = max(n, 0)
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			st := BadRequest(err.Error())
			return &st
		}
		r.Timeout = time.Duration(max(n, 0)) * time.Second
	}
	if v := r.ResourceVersion; v != "" {
		if _, err := strconv.ParseUint(v, 10, 64); err != nil {
			msg := fmt.Sprintf("resourceVersion: Invalid value: %q: %v", v, err)
			if r.Watch {
				// The watch path reports it as an internal error, reason unset.
				return &Status{Code: http.StatusInternalServerError, Message: msg}
			}
			st := BadRequest("invalid resource version: " + msg)
			return &st
		}
	}
	return nil
}

// validate refuses the option combinations the apiserver refuses.
func (r *PodsRequest) validate() *Status {
	forbidden := func(field, msg string) *Status {
		st := InvalidOption(field, "FieldValueForbidden", "Forbidden: "+msg)
		return &st
	}
	switch {
	case r.Match != "" && r.Match != "NotOlderThan" && r.Match != "Exact":
		st := InvalidOption("resourceVersionMatch", "FieldValueNotSupported",
			fmt.Sprintf(`Unsupported value: %q: supported values: "Exact", "NotOlderThan", ""`, r.Match))
		return &st
	case r.SendInitialEvents && !r.Watch:
		return forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")
	case r.SendInitialEvents && r.Match != "NotOlderThan":
		return forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	case r.Watch && !r.SendInitialEvents && r.Match != "":
		return forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	case r.Match != "" && r.ResourceVersion == "" && !r.SendInitialEvents:
		return forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")
	case r.Match == "Exact" && r.ResourceVersion == "0":
		return forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
	case r.Continue != "" && r.ResourceVersion != "" && r.ResourceVersion != "0":
		st := BadRequest("specifying resource version is not allowed when using continue")
		return &st
	case r.Continue != "" && r.Match != "":
		st := BadRequest("specifying resource version match is not allowed when using continue")
		return &st
	}
	return nil
}

// ParseFieldSelector reads a field selector on pods: comma-separated terms
// field=value, field==value or field!=value, on the fields the apiserver
// supports for pods. A backslash escapes the next byte of a value.
func ParseFieldSelector(sel string) ([]Term, *Status) {
	if sel == "" {
		return nil, nil
	}
	var terms []Term
	for _, raw := range splitUnescaped(sel) {
		t, ok := parseTerm(raw)
		if !ok {
			st := BadRequest(fmt.Sprintf("invalid selector: '%s'; can't understand '%s'", sel, raw))
			return nil, &st
		}
		if !podFields[t.Field] {
			st := BadRequest("field label not supported: " + t.Field)
			return nil, &st
		}
		terms = append(terms, t)
	}
	return terms, nil
}

func splitUnescaped(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func parseTerm(raw string) (Term, bool) {
	for _, op := range []string{"!=", "==", "="} {
		if f, v, ok := strings.Cut(raw, op); ok {
			f = strings.TrimSpace(f)
			if f == "" {
				return Term{}, false
			}
			if op == "==" {
				op = "="
			}
			return Term{Field: f, Op: op, Value: unescape(strings.TrimSpace(v))}, true
		}
	}
	return Term{}, false
}

func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
