package rest

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStatusError: whatever a non-2xx answer holds, NewStatusError builds an
// error that keeps the HTTP code when the body says none, quotes at most a
// short valid-UTF-8 prefix of a foreign body, and never waits longer than
// maxRetryAfter; never a panic.
func FuzzStatusError(f *testing.F) {
	for _, s := range []struct {
		code       int
		retryAfter string
		body       string
	}{
		{410, "", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (4)","reason":"Expired","code":410}`},
		{429, "3", `{"kind":"Status","status":"Failure","reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429}`},
		{429, "999999999999", `{"kind":"Status","code":429,"details":{"retryAfterSeconds":2147483647}}`},
		{503, "Wed, 21 Oct 2015 07:28:00 GMT", "<!DOCTYPE html>\n<html><body><h1>Service Unavailable</h1></body></html>\n"},
		{500, "-5", "\xff\xfe not utf-8 \x00"},
		{404, "", ""},
		{418, "1", strings.Repeat("é", 200)},
	} {
		f.Add(s.code, s.retryAfter, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, code int, retryAfter string, body []byte) {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		e := NewStatusError("GET https://h/api/v1/pods", code, h, body)
		if e.Error() == "" {
			t.Fatalf("empty error message")
		}
		if e.Status.Code == 0 && code != 0 {
			t.Fatalf("code %d lost: %+v", code, e.Status)
		}
		if len(e.Body) > snippetLimit || !utf8.ValidString(e.Body) {
			t.Fatalf("quoted body %q: longer than %d bytes or not UTF-8", e.Body, snippetLimit)
		}
		// A Retry-After past 2^63 ns once overflowed to a negative wait
		// (testdata/fuzz/FuzzStatusError/f716cd6645410322): the wait is
		// always within [0, maxRetryAfter].
		if e.RetryAfter < 0 || e.RetryAfter > maxRetryAfter {
			t.Fatalf("RetryAfter %v outside [0, %v]", e.RetryAfter, maxRetryAfter)
		}
		if got, ok := AsStatusError(e); !ok || got != e {
			t.Fatalf("AsStatusError does not find the error itself")
		}
	})
}
