package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// Body limits: a non-2xx body only feeds an error message; Do is for small answers.
const (
	errorBodyLimit = 64 << 10
	doBodyLimit    = 64 << 20
)

// ErrBodyTooLarge is returned by Do when an answer exceeds its 64 MiB bound.
var ErrBodyTooLarge = errors.New("response body too large")

// errHeaderTimeout is the cancel cause when response headers came too late.
var errHeaderTimeout = errors.New("response header timeout")

// Stream sends the request and returns the response once its headers arrive. On a
// nil error the answer is 2xx and its Body is open: the caller must close it, and
// reads it at its own pace (ctx still ends it). A non-2xx answer becomes a
// *StatusError; a transport failure is wrapped with the method and URL.
//
// Non-watch requests are retried on 429 and on 5xx with Retry-After, waiting as
// the server asked, and Config.Timeout bounds each wait for headers. Watches are
// sent once and never time out.
func (r *Request) Stream(ctx context.Context) (*http.Response, error) {
	return r.stream(ctx, r.c.timeout)
}

func (r *Request) stream(ctx context.Context, headerTimeout time.Duration) (*http.Response, error) {
	if r.isWatch() {
		return r.send(ctx, 0)
	}
	return r.retry(ctx, func() (*http.Response, error) { return r.send(ctx, headerTimeout) })
}

// Do sends the request and returns its whole body, at most 64 MiB; for a non-watch
// request Config.Timeout bounds all of it, retries included. Errors are as for
// Stream, plus ErrBodyTooLarge and failures reading the body.
func (r *Request) Do(ctx context.Context) ([]byte, error) {
	if !r.isWatch() && r.c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = withTimeout(ctx, r.c.clock, r.c.timeout)
		defer cancel()
	}
	// ctx already bounds the whole call; no separate wait for headers.
	resp, err := r.stream(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, doBodyLimit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read body: %w", r.where(), err)
	}
	if len(b) > doBodyLimit {
		return nil, fmt.Errorf("%s: %w (limit %d bytes)", r.where(), ErrBodyTooLarge, doBodyLimit)
	}
	return b, nil
}

func (r *Request) where() string { return r.verb + " " + r.URL().String() }

// retry sends until the answer is not worth retrying or retries run out.
func (r *Request) retry(ctx context.Context, send func() (*http.Response, error)) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := send()
		se, ok := AsStatusError(err)
		if !ok || attempt >= r.c.maxRetries {
			return resp, err
		}
		wait, retry := retryWait(se)
		if !retry {
			return resp, err
		}
		if err := r.c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s: waiting %s to retry after %d: %w", r.where(), wait, se.Status.Code, err)
		}
	}
}

// defaultTooManyWait is the pause after a 429 that did not say how long to wait.
const defaultTooManyWait = time.Second

// retryWait says whether an answer is retried and after how long: a 429 always,
// a 5xx only when the server said when to come back.
func retryWait(se *StatusError) (time.Duration, bool) {
	switch code := se.Status.Code; {
	case code == http.StatusTooManyRequests:
		if se.RetryAfter > 0 {
			return se.RetryAfter, true
		}
		return defaultTooManyWait, true
	case code >= 500 && code <= 599 && se.RetryAfter > 0:
		return se.RetryAfter, true
	}
	return 0, false
}

// send makes one attempt. headerTimeout, when positive, cancels the attempt unless
// response headers arrive in time: a guard on the client's clock. On a
// virtual clock (a replay at speed 0) it fires once the replay's time has
// passed it, and the replay's clock backs every guard with the wall clock,
// so a server that never answers is still given up on.
func (r *Request) send(ctx context.Context, headerTimeout time.Duration) (*http.Response, error) {
	u := r.URL()
	where := r.verb + " " + u.String()
	tok, err := r.c.token.token()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	var timer timing.Timer
	if headerTimeout > 0 {
		timer = timing.AfterFunc(r.c.clock, headerTimeout, func() { cancel(errHeaderTimeout) })
	}
	// The one place a request gets its context.
	req, err := http.NewRequestWithContext(ctx, r.verb, u.String(), bodyReader(r.body))
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	r.setHeaders(req, tok)
	resp, err := r.c.http.Do(req)
	if timer != nil && !timer.Stop() && err == nil {
		// Headers raced the timer and lost.
		resp.Body.Close()
		err = errHeaderTimeout
	}
	if err != nil {
		cancel(nil)
		return nil, transportError(ctx, where, headerTimeout, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel(nil)
		return nil, statusError(where, resp)
	}
	if err := r.checkContentType(where, resp); err != nil {
		resp.Body.Close()
		cancel(nil)
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

func bodyReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

func (r *Request) setHeaders(req *http.Request, token string) {
	req.Header.Set("Accept", r.accept())
	req.Header.Set("User-Agent", r.c.userAgent)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if r.body != nil {
		ct := r.bodyType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
}

func transportError(ctx context.Context, where string, headerTimeout time.Duration, err error) error {
	if errors.Is(err, errHeaderTimeout) || errors.Is(context.Cause(ctx), errHeaderTimeout) {
		return fmt.Errorf("%s: no response headers within %s: %w", where, headerTimeout, context.DeadlineExceeded)
	}
	// net/http names the URL itself; unwrap so it is named once.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w", where, err)
}

func statusError(where string, resp *http.Response) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	return NewStatusError(where, resp.StatusCode, resp.Header, statusBody(resp.Header, body))
}

// cancelOnClose releases the request's context when the caller closes the body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
