package check

import (
	"context"
	"fmt"
	"strconv"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

// absentPod names a pod no one has: getting it is a 404 (or a 403 where
// get is not granted), either way a refusal with a Status body.
const absentPod = ThrowawayPrefix + "absent"

// checkErrorStatusBody: a refusal comes with a Status body whose code is
// the HTTP status.
func checkErrorStatusBody(ctx context.Context, e *env) Outcome {
	const req = `a 4xx or 5xx answer has a Status body: {"kind":"Status","apiVersion":"v1","status":"Failure","code":<the HTTP status>,...}`
	ns := e.opts.Namespace
	if ns == "" {
		ns = "default"
	}
	probes := []*rest.Request{
		e.json.Get().Namespace(ns).Resource("pods").Name(absentPod),
		e.podsRequest(e.json).Param("limit", "not-a-number"),
	}
	var refused []*Exchange
	for _, r := range probes {
		x := &Exchange{}
		_, err := r.Do(withExchange(ctx, x))
		if x.Status < 400 {
			if err != nil && x.Status == 0 {
				return fail(req, "the request got no answer: "+err.Error(), x)
			}
			continue
		}
		refused = append(refused, x)
		if why := statusBodyProblem(x); why != "" {
			return fail(req, why, x)
		}
	}
	if len(refused) == 0 {
		return notApplicable("neither an absent pod nor a malformed limit was refused")
	}
	return pass("%d refusals, each with its Status (%d, %d)", len(refused), refused[0].Status, refused[len(refused)-1].Status).with(refused...)
}

// statusBodyProblem says what is wrong with a refusal's body, "" if
// nothing.
func statusBodyProblem(x *Exchange) string {
	if mt, _ := mediaType(x.ContentType); mt != wire.ContentTypeJSON {
		return fmt.Sprintf("the %d answer's Content-Type is %q, not application/json", x.Status, x.ContentType)
	}
	st, err := meta.ParseStatus([]byte(x.Body))
	switch {
	case err != nil:
		return fmt.Sprintf("the %d answer's body is not a Status: %v", x.Status, err)
	case st.Kind != "Status" || st.APIVersion != "v1":
		return fmt.Sprintf("the %d answer's body is of kind %q, apiVersion %q", x.Status, st.Kind, st.APIVersion)
	case st.Status != "Failure":
		return fmt.Sprintf("the %d answer's Status says status %q, not Failure", x.Status, st.Status)
	case int(st.Code) != x.Status:
		return fmt.Sprintf("the %d answer's Status says code %d", x.Status, st.Code)
	}
	return ""
}

// checkRetryAfter: every 429 the run met said when to come back.
func checkRetryAfter(_ context.Context, e *env) Outcome {
	const req = "a 429 answer carries Retry-After (seconds), and a Status body"
	e.mu.Lock()
	seen := append([]Exchange(nil), e.tooMany...)
	e.mu.Unlock()
	if len(seen) == 0 {
		return notApplicable("no request of the run was answered 429, and a check cannot cause one without flooding the server")
	}
	for i := range seen {
		x := &seen[i]
		if n, err := strconv.Atoi(x.RetryAfter); err != nil || n < 0 {
			return fail(req, fmt.Sprintf("a 429 came with Retry-After %q", x.RetryAfter), x)
		}
		if why := statusBodyProblem(x); why != "" {
			return fail(req, why, x)
		}
	}
	return pass("%d answers 429, each with Retry-After", len(seen)).with(&seen[0])
}
