package session

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/stall"
	"github.com/podwatch/podwatch/watch"
)

// progressAfter is how long a list must take for its counts to be kept as
// a line once it ends; progressEvery how often the line is drawn.
const (
	progressAfter = time.Second
	progressEvery = 200 * time.Millisecond
)

// progress tracks what the reflector is doing and draws it on stderr as one
// line, from the moment the session starts: connecting, an initial list (or
// watch list) in flight with the pages, items and bytes that came so far,
// then the open watch with the age of its last byte, event and bookmark
// and, once it has been silent for stallAfter, the stall verdict the trace
// would give. After a failure it names the attempt. It says only what
// came: a page whose answer is still awaited is not counted, and an event
// or a bookmark that has not come has no age. A nil *progress does
// nothing, so callers need not check.
type progress struct {
	log        *base.Logger
	now        func() time.Time
	stallAfter time.Duration

	mu      sync.Mutex
	listing bool
	began   time.Time
	pages   int // the list's pages whose answer came
	items   int
	bytes   int64
	drawn   bool // the list has run long enough to keep its counts as a line
	// failed counts the attempts failed since the last success (retries).
	failed int
	// watching is the watch the reflector asked for, from rv; watch follows
	// its silence once its headers came (gen numbers its body), and evented
	// and bookmarked say whether an event and a bookmark came on it.
	watching            bool
	rv                  string
	watch               *stall.Silence
	gen                 int
	evented, bookmarked bool
	// idle is the line between lists and watches.
	idle string
}

func newProgress(log *base.Logger, stallAfter time.Duration) *progress {
	return &progress{log: log, now: time.Now, stallAfter: stallAfter, idle: "podwatch: connecting to the server"}
}

// start draws the progress now and every progressEvery until ctx ends; the
// returned func stops the drawing goroutine and waits for it.
func (p *progress) start(ctx context.Context) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	p.log.DrawProgress(p.line())
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.log.DrawProgress(p.line())
			}
		}
	}()
	return func() {
		cancel()
		<-done
		p.log.EndProgress()
	}
}

// step follows the reflector: a list or a watch list begins the count, a
// replace ends it; a watch is followed until the next step. failed is the
// number of attempts failed since the last success, as retries counts them.
func (p *progress) step(st cache.Step, failed int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed = failed
	switch st.Kind {
	case cache.StepList, cache.StepWatchList:
		if !p.listing {
			p.listing, p.began, p.pages, p.items, p.bytes, p.drawn = true, p.now(), 0, 0, 0, false
		}
		p.watching, p.watch = false, nil
	case cache.StepReplace:
		if p.listing && p.drawn {
			p.log.Printf("listed %d pods (%s, %s) in %s", st.Items, count(p.pages, "page", "pages"), formatBytes(p.bytes), p.now().Sub(p.began).Round(time.Millisecond))
		}
		p.listing = false
		if p.watch != nil {
			// A watch list's stream stays open as the watch.
			p.watching, p.rv = true, st.ResourceVersion
		}
	case cache.StepWatch:
		p.watching, p.rv, p.watch = true, st.ResourceVersion, nil
	case cache.StepEvent:
		if p.watch != nil {
			// A watch list's bookmark ends its initial events.
			p.watch.Event(p.now(), string(st.Event), st.ResourceVersion, p.listing && st.Event == watch.Bookmark)
			p.evented = true
			p.bookmarked = p.bookmarked || st.Event == watch.Bookmark
		}
	case cache.StepBackoff:
		// The attempt is over: what it listed is not carried into the next.
		p.listing, p.watching, p.watch = false, false, nil
		p.idle = fmt.Sprintf("podwatch: attempt %d failed (%s); retrying in %s", failed, shortCause(st.Err), st.Wait.Round(time.Millisecond))
	case cache.StepWatchEnded, cache.StepRelist, cache.StepStopped:
		p.watching, p.watch = false, nil
		p.idle = idleLine(st)
	}
}

// page counts a list page whose answer came.
func (p *progress) page() {
	p.mu.Lock()
	if p.listing {
		p.pages++
	}
	p.mu.Unlock()
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

// watchOpened follows the silence of a watch whose headers just came, and
// returns the number its body's reads are counted under.
func (p *progress) watchOpened(q url.Values) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := stall.NewSilence(q)
	s.Opened(p.now())
	p.watch = &s
	p.evented, p.bookmarked = false, false
	p.gen++
	return p.gen
}

// watchRead notes a read of the body of watch gen, if it is still followed.
func (p *progress) watchRead(gen, n int) {
	p.mu.Lock()
	if p.watch != nil && gen == p.gen && n > 0 {
		p.watch.Byte(p.now())
	}
	p.mu.Unlock()
}

// line is the progress to draw now.
func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	attempt := ""
	if p.failed > 0 {
		attempt = fmt.Sprintf("attempt %d: ", p.failed+1)
	}
	switch {
	case p.listing:
		elapsed := now.Sub(p.began)
		if elapsed >= progressAfter {
			p.drawn = true
		}
		return attempt + formatProgress(p.pages, p.items, p.bytes, elapsed)
	case p.watching && p.watch != nil:
		return attempt + formatWatch(p.rv, p.watch.Judge(now), p.stallAfter, p.evented, p.bookmarked)
	case p.watching:
		return attempt + "watching from rv " + p.rv + ": waiting for the server's answer"
	}
	return p.idle
}

func idleLine(st cache.Step) string {
	switch st.Kind {
	case cache.StepWatchEnded:
		return "podwatch: the server ended the watch; watching again from rv " + st.ResourceVersion
	case cache.StepRelist:
		return "podwatch: listing again"
	}
	return "podwatch: stopped"
}

// formatWatch is the line of an open watch: the ages of its last byte,
// event and bookmark (evented and bookmarked say whether one came); once
// silent for stallAfter (when positive), the silence and its verdict
// first.
func formatWatch(rv string, st *trace.Stall, stallAfter time.Duration, evented, bookmarked bool) string {
	ages := "no event yet"
	if evented {
		ages = "event " + ago(st.SinceEvent) + " ago"
	}
	switch {
	case st.Bookmarks && bookmarked:
		ages += ", bookmark " + ago(st.SinceBookmark) + " ago"
	case st.Bookmarks:
		ages += ", no bookmark yet"
	}
	if stallAfter > 0 && st.SinceByte >= stallAfter {
		return fmt.Sprintf("watch silent %s (%s): %s", ago(st.SinceByte), st.Verdict, ages)
	}
	return fmt.Sprintf("watching from rv %s: last byte %s ago, %s", rv, ago(st.SinceByte), ages)
}

// ago shows an age to the second, which is what a glance needs.
func ago(d time.Duration) string { return d.Truncate(time.Second).String() }

// formatProgress is the line of a list or watch list in flight: what came
// of it so far, or that nothing has.
func formatProgress(pages, items int, bytes int64, elapsed time.Duration) string {
	took := elapsed.Round(100 * time.Millisecond).String()
	switch {
	case pages == 0 && items == 0 && bytes == 0:
		return "listing pods: waiting for the server's answer, " + took
	case pages == 0:
		return fmt.Sprintf("listing pods: watch list, %s, %s, %s", count(items, "item", "items"), formatBytes(bytes), took)
	}
	return fmt.Sprintf("listing pods: %s, %s, %s, %s", count(pages, "page", "pages"), count(items, "item", "items"), formatBytes(bytes), took)
}

func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, base.Plural(n, one, many)) }

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
func (p *progress) layer() base.Layer {
	if p == nil {
		return nil
	}
	return func(next http.RoundTripper) http.RoundTripper {
		return base.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			switch {
			case err != nil || resp.Body == nil:
			case isWatch(req.URL) && resp.StatusCode/100 == 2:
				gen := p.watchOpened(req.URL.Query())
				resp.Body = &countingBody{ReadCloser: resp.Body, count: func(n int) { p.watchRead(gen, n) }}
			case resp.StatusCode/100 == 2:
				// A refusal's body is no part of a list.
				p.page()
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

// isWatch reports whether u asks for a watch, in either of its forms.
func isWatch(u *url.URL) bool {
	return u.Query().Get("watch") == "true" || strings.Contains(u.Path, "/watch/")
}
