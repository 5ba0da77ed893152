package rest

import (
	"errors"
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
			if !IsTooManyRequests(err) {
				t.Errorf("IsTooManyRequests(%v) = false through wrapping", err)
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

func TestIsRetryable(t *testing.T) {
	for _, tc := range []struct {
		code int
		want bool
	}{
		{400, false}, {401, false}, {403, false}, {404, false}, {405, false}, {422, false},
		{408, true}, {410, true}, {429, true}, {500, true}, {502, true}, {503, true}, {504, true},
	} {
		err := fmt.Errorf("list pods: %w", NewStatusError("GET x", tc.code, nil, nil))
		if got := IsRetryable(err); got != tc.want {
			t.Errorf("IsRetryable(%d) = %v, want %v", tc.code, got, tc.want)
		}
	}
	if IsRetryable(fmt.Errorf("dial: %w", errors.New("connection refused"))) {
		t.Errorf("IsRetryable is true for an error that is not a server's answer")
	}
}
