package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podwatch/podwatch/rest/meta"
)

// StatusError is a failure the apiserver reported: a non-2xx answer, or a watch
// ERROR event. Status is what the server said; when the body of a non-2xx answer was
// not a Status (an HTML page from a proxy, say), Status is built from the HTTP code
// and Body holds the start of what came instead.
type StatusError struct {
	Status meta.Status
	// Body is a short, printable prefix of a body that was not a Status.
	Body string
	// RetryAfter is the wait the server asked for (Retry-After header or
	// details.retryAfterSeconds); zero when it asked for none.
	RetryAfter time.Duration
	// Where names the request or stream the failure belongs to, e.g.
	// "GET https://h/api/v1/pods"; it never holds credentials.
	Where string
}

func (e *StatusError) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "server answered %d", e.Status.Code)
	if e.Status.Reason != "" {
		fmt.Fprintf(&b, " %s", e.Status.Reason)
	}
	if e.Status.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Status.Message)
	}
	if e.Body != "" {
		fmt.Fprintf(&b, " (body is not a Status: %q)", e.Body)
	}
	return b.String()
}

// snippetLimit bounds how much of a foreign body an error quotes.
const snippetLimit = 256

// NewStatusError builds the error for a non-2xx answer from its status code, headers
// and (possibly truncated) body.
func NewStatusError(where string, code int, header http.Header, body []byte) *StatusError {
	e := &StatusError{Where: where}
	if st, err := meta.ParseStatus(body); err == nil {
		e.Status = *st
		if e.Status.Code == 0 {
			e.Status.Code = int32(code)
		}
	} else {
		e.Status = meta.Status{
			Status:  "Failure",
			Code:    int32(code),
			Reason:  reasonForCode(code),
			Message: http.StatusText(code),
		}
		e.Body = snippet(body)
	}
	e.RetryAfter = retryAfter(header, e.Status.Details)
	return e
}

// NewStatusErrorFromStatus wraps a Status the server sent inside a stream.
func NewStatusErrorFromStatus(where string, st *meta.Status) *StatusError {
	e := &StatusError{Where: where, Status: *st}
	e.RetryAfter = retryAfter(nil, st.Details)
	return e
}

func snippet(body []byte) string {
	if len(body) > snippetLimit {
		body = body[:snippetLimit]
	}
	for !utf8.Valid(body) && len(body) > 0 {
		body = body[:len(body)-1]
	}
	return strings.TrimSpace(string(body))
}

func reasonForCode(code int) meta.StatusReason {
	switch code {
	case http.StatusGone:
		return meta.ReasonGone
	case http.StatusTooManyRequests:
		return meta.ReasonTooManyRequests
	case http.StatusNotFound:
		return meta.ReasonNotFound
	case http.StatusForbidden:
		return meta.ReasonForbidden
	case http.StatusUnauthorized:
		return meta.ReasonUnauthorized
	}
	return ""
}

// maxRetryAfter caps a server's requested wait so a hostile answer cannot park a
// client for days.
const maxRetryAfter = 5 * time.Minute

func retryAfter(h http.Header, d *meta.StatusDetails) time.Duration {
	var secs int
	if h != nil {
		if _, err := fmt.Sscanf(h.Get("Retry-After"), "%d", &secs); err != nil {
			secs = 0
		}
	}
	if secs <= 0 && d != nil {
		secs = int(d.RetryAfterSeconds)
	}
	if secs <= 0 {
		return 0
	}
	// Cap the seconds before converting: a huge Retry-After would overflow.
	if secs >= int(maxRetryAfter/time.Second) {
		return maxRetryAfter
	}
	return time.Duration(secs) * time.Second
}

// AsStatusError returns the StatusError in err's chain, if any.
func AsStatusError(err error) (*StatusError, bool) {
	var se *StatusError
	ok := errors.As(err, &se)
	return se, ok
}

func codeIs(err error, code int32) bool {
	se, ok := AsStatusError(err)
	return ok && se.Status.Code == code
}

// IsGone reports a 410: the requested resourceVersion is too old (reason Gone, or
// Expired). A reflector answers it with a relist.
func IsGone(err error) bool { return codeIs(err, http.StatusGone) }

// IsNotFound reports a 404.
func IsNotFound(err error) bool { return codeIs(err, http.StatusNotFound) }

// IsForbidden reports a 403.
func IsForbidden(err error) bool { return codeIs(err, http.StatusForbidden) }

// IsUnauthorized reports a 401.
func IsUnauthorized(err error) bool { return codeIs(err, http.StatusUnauthorized) }

// RetryAfter returns the wait a failed request's server asked for, or zero.
func RetryAfter(err error) time.Duration {
	if se, ok := AsStatusError(err); ok {
		return se.RetryAfter
	}
	return 0
}
