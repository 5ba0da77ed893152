package session

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/watch"
)

// answer passes one response through the progress layer, as the client's
// transport would hand it up.
func answer(t *testing.T, p *progress, rawURL string, code int) {
	t.Helper()
	req, err := http.NewRequest("GET", rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt := p.layer()(base.RoundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: code, Body: http.NoBody}, nil
	}))
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
}

// TestProgress drives the progress tracker with a fake clock: a line from
// the first moment, the pages, items and bytes that came while a list runs,
// a summary once a slow one is replaced (none for a quick one), then the
// watch's ages and, once it is silent past --stall-after, its stall verdict.
func TestProgress(t *testing.T) {
	out := clitest.NewSyncBuffer()
	p := newProgress(base.NewLogger(out, 0), 30*time.Second)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	const pods = "https://h/api/v1/pods?limit=500"

	if s := p.line(); s != "podwatch: connecting to the server" {
		t.Fatalf("first line: got %q", s)
	}
	p.step(cache.Step{Kind: cache.StepList}, 0)
	if s, want := p.line(), "listing pods: waiting for the server's answer, 0s"; s != want {
		t.Fatalf("before the first page came: got %q, want %q", s, want)
	}
	answer(t, p, pods, 200)
	p.item()
	p.read(2048)
	if s, want := p.line(), "listing pods: 1 page, 1 item, 2.0 KiB, 0s"; s != want {
		t.Fatalf("line at once: got %q, want %q", s, want)
	}
	now = now.Add(1500 * time.Millisecond)
	p.step(cache.Step{Kind: cache.StepList}, 0)
	if s, want := p.line(), "listing pods: 1 page, 1 item, 2.0 KiB, 1.5s"; s != want {
		t.Fatalf("the second page asked for: got %q, want %q", s, want)
	}
	answer(t, p, pods+"&continue=x", 200)
	p.item()
	if s, want := p.line(), "listing pods: 2 pages, 2 items, 2.0 KiB, 1.5s"; s != want {
		t.Fatalf("line: got %q, want %q", s, want)
	}
	p.step(cache.Step{Kind: cache.StepReplace, Items: 2}, 0)
	if want := "listed 2 pods (2 pages, 2.0 KiB) in 1.5s\n"; out.String() != want {
		t.Fatalf("summary: got %q, want %q", out.String(), want)
	}
	p.item() // a watch event: not counted any more
	p.step(cache.Step{Kind: cache.StepWatchList}, 0)
	if p.items != 0 || p.pages != 0 {
		t.Fatalf("a new sync starts at %d items and %d pages, want 0 and 0", p.items, p.pages)
	}
	p.step(cache.Step{Kind: cache.StepReplace, Items: 2}, 0)
	if want := "listed 2 pods (2 pages, 2.0 KiB) in 1.5s\n"; out.String() != want {
		t.Fatalf("a quick list left a summary: got %q", out.String())
	}

	p.step(cache.Step{Kind: cache.StepWatch, ResourceVersion: "10"}, 0)
	if s, want := p.line(), "watching from rv 10: waiting for the server's answer"; s != want {
		t.Fatalf("before the headers: got %q, want %q", s, want)
	}
	q, _ := url.ParseQuery("watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=300")
	old := p.watchOpened(q)
	gen := p.watchOpened(q) // the reflector's next watch: the old body no longer counts
	now = now.Add(2 * time.Second)
	if s, want := p.line(), "watching from rv 10: last byte 2s ago, no event yet, no bookmark yet"; s != want {
		t.Fatalf("nothing came yet: got %q, want %q", s, want)
	}
	now = now.Add(3 * time.Second)
	p.watchRead(gen, 100)
	p.step(cache.Step{Kind: cache.StepEvent, Event: watch.Modified, ResourceVersion: "11"}, 0)
	now = now.Add(3 * time.Second)
	p.watchRead(old, 100)
	if s, want := p.line(), "watching from rv 10: last byte 3s ago, event 3s ago, no bookmark yet"; s != want {
		t.Fatalf("watching: got %q, want %q", s, want)
	}
	now = now.Add(30 * time.Second)
	if s, want := p.line(), "watch silent 33s (quiet): event 33s ago, no bookmark yet"; s != want {
		t.Fatalf("silent: got %q, want %q", s, want)
	}
	// The change at rv 11 moved the server's cache past the watch: its
	// bookmark is due within the minute.
	now = now.Add(32 * time.Second)
	if s, want := p.line(), "watch silent 1m5s (overdue): event 1m5s ago, no bookmark yet"; s != want {
		t.Fatalf("overdue: got %q, want %q", s, want)
	}
	p.watchRead(gen, 50)
	p.step(cache.Step{Kind: cache.StepEvent, Event: watch.Bookmark, ResourceVersion: "12"}, 0)
	now = now.Add(time.Second)
	if s, want := p.line(), "watching from rv 10: last byte 1s ago, event 1s ago, bookmark 1s ago"; s != want {
		t.Fatalf("after a bookmark: got %q, want %q", s, want)
	}
	p.step(cache.Step{Kind: cache.StepWatchEnded, ResourceVersion: "12"}, 0)
	if s, want := p.line(), "podwatch: the server ended the watch; watching again from rv 12"; s != want {
		t.Fatalf("after the watch ended: got %q, want %q", s, want)
	}
}

// TestProgressAttempts follows a server that refuses every connection: the
// line names the attempt, and never a page or an item that did not come,
// however many attempts there were.
func TestProgressAttempts(t *testing.T) {
	p := newProgress(base.NewLogger(clitest.NewSyncBuffer(), 0), 30*time.Second)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	var r retries
	step := func(st cache.Step) {
		r.step(st)
		p.step(st, r.failed)
	}
	refused := errors.New("connection refused")
	for attempt := 1; attempt <= 4; attempt++ {
		step(cache.Step{Kind: cache.StepWatchList})
		step(cache.Step{Kind: cache.StepFallbackList, Err: refused})
		step(cache.Step{Kind: cache.StepList, Page: 1})
		want := "listing pods: waiting for the server's answer, 0s"
		if attempt > 1 {
			want = "attempt " + string(rune('0'+attempt)) + ": " + want
		}
		if s := p.line(); s != want {
			t.Fatalf("attempt %d in flight: got %q, want %q", attempt, s, want)
		}
		answer(t, p, "https://h/api/v1/pods", http.StatusServiceUnavailable) // a refusal is no page
		step(cache.Step{Kind: cache.StepBackoff, Wait: 1500 * time.Millisecond, Err: refused})
		want = "podwatch: attempt " + string(rune('0'+attempt)) + " failed (connection refused); retrying in 1.5s"
		if s := p.line(); s != want {
			t.Fatalf("after attempt %d: got %q, want %q", attempt, s, want)
		}
	}
	step(cache.Step{Kind: cache.StepList, Page: 1})
	answer(t, p, "https://h/api/v1/pods", 200)
	if s, want := p.line(), "attempt 5: listing pods: 1 page, 0 items, 0 B, 0s"; s != want {
		t.Fatalf("the page of attempt 5: got %q, want %q", s, want)
	}
	step(cache.Step{Kind: cache.StepReplace})
	step(cache.Step{Kind: cache.StepWatch, ResourceVersion: "5"})
	if s, want := p.line(), "watching from rv 5: waiting for the server's answer"; s != want {
		t.Fatalf("after the sync: got %q, want %q (no attempt once one succeeded)", s, want)
	}
}
