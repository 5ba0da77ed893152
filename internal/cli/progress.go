package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/podwatch/podwatch/cache"
)

// Progress is drawn only for lists that take a while, and only on a terminal.
const (
	progressAfter = time.Second
	progressEvery = 200 * time.Millisecond
)

// progress tracks an initial list (or watch list) in flight: pages, items and
// bytes so far, and draws them on stderr while it lasts. A nil *progress does
// nothing, so callers need not check.
type progress struct {
	log *logger
	now func() time.Time

	mu      sync.Mutex
	listing bool
	began   time.Time
	pages   int
	items   int
	bytes   int64
	drawn   bool
}

func newProgress(log *logger) *progress { return &progress{log: log, now: time.Now} }

// start draws the progress every progressEvery until ctx ends; the returned
// func stops the drawing goroutine and waits for it.
func (p *progress) start(ctx context.Context) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if s, ok := p.line(); ok {
					p.log.drawProgress(s)
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
		p.log.endProgress()
	}
}

// step follows the reflector: a list page or a watch list begins the count, a
// replace ends it.
func (p *progress) step(st cache.Step) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st.Kind {
	case cache.StepList, cache.StepWatchList:
		if !p.listing {
			p.listing, p.began, p.pages, p.items, p.bytes, p.drawn = true, p.now(), 0, 0, 0, false
		}
		if st.Kind == cache.StepList {
			p.pages++
		}
	case cache.StepReplace:
		if p.listing && p.drawn {
			p.log.printf("listed %d pods (%d pages, %s) in %s", st.Items, p.pages, formatBytes(p.bytes), p.now().Sub(p.began).Round(time.Millisecond))
		}
		p.listing = false
	}
}

// item counts one decoded object.
func (p *progress) item() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.listing {
		p.items++
	}
	p.mu.Unlock()
}

func (p *progress) read(n int) {
	p.mu.Lock()
	if p.listing {
		p.bytes += int64(n)
	}
	p.mu.Unlock()
}

// line is the progress to draw now, if a list has been running long enough.
func (p *progress) line() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.listing {
		return "", false
	}
	elapsed := p.now().Sub(p.began)
	if elapsed < progressAfter {
		return "", false
	}
	p.drawn = true
	return formatProgress(p.pages, p.items, p.bytes, elapsed), true
}

func formatProgress(pages, items int, bytes int64, elapsed time.Duration) string {
	what := "watch list"
	if pages > 0 {
		what = fmt.Sprintf("page %d", pages)
	}
	return fmt.Sprintf("listing pods: %s, %d items, %s, %s", what, items, formatBytes(bytes), elapsed.Round(100*time.Millisecond))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// layer counts response bytes for the progress line.
func (p *progress) layer() layer {
	if p == nil {
		return nil
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			if err == nil && resp.Body != nil {
				resp.Body = &countingBody{ReadCloser: resp.Body, count: p.read}
			}
			return resp, err
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countingBody struct {
	io.ReadCloser
	count func(int)
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.count(n)
	return n, err
}
