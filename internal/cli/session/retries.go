package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
)

// retries words the warnings of the failures the reflector retries. A
// failure is told in full the first time; told again, it would say nothing
// new (a server that refuses connections refuses them every time, and each
// warning is a few hundred characters), so after that each attempt it
// fails is only counted. Attempts count from the last success: a sync,
// an event, a watch the server ended cleanly. Used on the reflector's
// goroutine only.
type retries struct {
	failed int             // attempts failed since the last success
	told   map[string]bool // the causes told in full since then
}

// step follows the reflector: a backoff ends a failed attempt, and a
// success starts the count again.
func (r *retries) step(st cache.Step) {
	switch st.Kind {
	case cache.StepReplace, cache.StepEvent, cache.StepWatchEnded:
		r.failed, r.told = 0, nil
	case cache.StepBackoff:
		r.failed++
	}
}

// backoff is the warning for a backoff step after the failure err, once
// step has counted it; again says it is only the count of a failure told
// before.
func (r *retries) backoff(err error, wait time.Duration) (warning string, again bool) {
	then := "retrying in " + wait.Round(time.Millisecond).String()
	if !r.tell(err) {
		return fmt.Sprintf("attempt %d failed: %s; %s", r.failed, shortCause(err), then), true
	}
	return err.Error() + "; " + then, false
}

// fallback is the warning for a watch list that failed with err, followed
// by a list; "" when err was told already: the list's own outcome follows.
func (r *retries) fallback(err error) string {
	if !r.tell(err) {
		return ""
	}
	return err.Error() + "; listing instead"
}

// tell reports whether err's cause is new since the last success, and
// notes it as told.
func (r *retries) tell(err error) bool {
	k := causeKey(err)
	if r.told[k] {
		return false
	}
	if r.told == nil {
		r.told = map[string]bool{}
	}
	r.told[k] = true
	return true
}

// rootCause is the innermost error of err's chain: what stays the same
// from one attempt to the next, without the request it was for, whose URL
// holds a fresh timeoutSeconds each time.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// causeKey tells two failures of the same cause apart from others: a
// server's answer by its code and reason (its message may name the
// request), any other by its innermost error.
func causeKey(err error) string {
	if se, ok := rest.AsStatusError(err); ok {
		return fmt.Sprintf("status %d %s", se.Status.Code, se.Status.Reason)
	}
	root := rootCause(err)
	return fmt.Sprintf("%T %v", root, root)
}

// shortCause is the cause a count names: "connection refused", "503
// ServiceUnavailable".
func shortCause(err error) string {
	if se, ok := rest.AsStatusError(err); ok {
		if se.Status.Reason == "" {
			return fmt.Sprintf("server answered %d", se.Status.Code)
		}
		return fmt.Sprintf("server answered %d %s", se.Status.Code, se.Status.Reason)
	}
	return rootCause(err).Error()
}
