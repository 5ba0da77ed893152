package rest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterSources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header string
		body   string
		want   time.Duration
	}{
		{"none", "", "", 0},
		{"header", "7", "", 7 * time.Second},
		{"details", "", `{"kind":"Status","code":429,"details":{"retryAfterSeconds":4}}`, 4 * time.Second},
		{"header wins", "2", `{"kind":"Status","code":429,"details":{"retryAfterSeconds":4}}`, 2 * time.Second},
		{"capped", "999999", "", maxRetryAfter},
		{"HTTP date is ignored", "Wed, 21 Oct 2015 07:28:00 GMT", "", 0},
		{"negative", "-3", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.header != "" {
				h.Set("Retry-After", tc.header)
			}
			err := fmt.Errorf("list pods: %w", NewStatusError("GET x", 429, h, []byte(tc.body)))
			if got := RetryAfter(err); got != tc.want {
				t.Errorf("RetryAfter = %v, want %v", got, tc.want)
			}
			if se, ok := AsStatusError(err); !ok || se.Status.Code != 429 {
				t.Errorf("AsStatusError(%v) = %v, %t; want the 429 through wrapping", err, se, ok)
			}
		})
	}
}

func TestStatusErrorText(t *testing.T) {
	e := NewStatusError("GET https://h/api/v1/pods", 503, nil, []byte("<html>"+strings.Repeat("x", 1000)))
	msg := e.Error()
	if !strings.HasPrefix(msg, "GET https://h/api/v1/pods: server answered 503") {
		t.Errorf("Error() = %q, want it to start with where and code", msg)
	}
	if len(e.Body) > snippetLimit {
		t.Errorf("Body is %d bytes, want at most %d", len(e.Body), snippetLimit)
	}
	if RetryAfter(fmt.Errorf("plain")) != 0 || IsGone(nil) {
		t.Error("predicates report something for errors that are not StatusErrors")
	}
}
