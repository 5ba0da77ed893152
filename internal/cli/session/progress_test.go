package session

import (
	"net/url"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/watch"
)

// TestProgress drives the progress tracker with a fake clock: a line from
// the first moment, pages, items and bytes while a list runs, a summary once
// a slow one is replaced (none for a quick one), then the watch's ages and,
// once it is silent past --stall-after, its stall verdict.
func TestProgress(t *testing.T) {
	out := clitest.NewSyncBuffer()
	p := newProgress(base.NewLogger(out, 0), 30*time.Second)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }

	if s := p.line(); s != "podwatch: connecting to the server" {
		t.Fatalf("first line: got %q", s)
	}
	p.step(cache.Step{Kind: cache.StepList})
	p.item()
	p.read(2048)
	if s, want := p.line(), "listing pods: page 1, 1 items, 2.0 KiB, 0s"; s != want {
		t.Fatalf("line at once: got %q, want %q", s, want)
	}
	now = now.Add(1500 * time.Millisecond)
	p.step(cache.Step{Kind: cache.StepList})
	p.item()
	if s, want := p.line(), "listing pods: page 2, 2 items, 2.0 KiB, 1.5s"; s != want {
		t.Fatalf("line: got %q, want %q", s, want)
	}
	p.step(cache.Step{Kind: cache.StepReplace, Items: 2})
	if want := "listed 2 pods (2 pages, 2.0 KiB) in 1.5s\n"; out.String() != want {
		t.Fatalf("summary: got %q, want %q", out.String(), want)
	}
	p.item() // a watch event: not counted any more
	p.step(cache.Step{Kind: cache.StepWatchList})
	if p.items != 0 || p.pages != 0 {
		t.Fatalf("a new sync starts at %d items and %d pages, want 0 and 0", p.items, p.pages)
	}
	p.step(cache.Step{Kind: cache.StepReplace, Items: 2})
	if want := "listed 2 pods (2 pages, 2.0 KiB) in 1.5s\n"; out.String() != want {
		t.Fatalf("a quick list left a summary: got %q", out.String())
	}

	p.step(cache.Step{Kind: cache.StepWatch, ResourceVersion: "10"})
	if s, want := p.line(), "watching from rv 10: waiting for the server's answer"; s != want {
		t.Fatalf("before the headers: got %q, want %q", s, want)
	}
	q, _ := url.ParseQuery("watch=true&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=300")
	old := p.watchOpened(q)
	gen := p.watchOpened(q) // the reflector's next watch: the old body no longer counts
	now = now.Add(5 * time.Second)
	p.watchRead(gen, 100)
	p.step(cache.Step{Kind: cache.StepEvent, Event: watch.Modified, ResourceVersion: "11"})
	now = now.Add(3 * time.Second)
	p.watchRead(old, 100)
	if s, want := p.line(), "watching from rv 10: last byte 3s ago, event 3s ago, bookmark 8s ago"; s != want {
		t.Fatalf("watching: got %q, want %q", s, want)
	}
	now = now.Add(30 * time.Second)
	if s, want := p.line(), "watch silent 33s (quiet): last event 33s ago, bookmark 38s ago"; s != want {
		t.Fatalf("silent: got %q, want %q", s, want)
	}
	// The change at rv 11 moved the server's cache past the watch: its
	// bookmark is due within the minute.
	now = now.Add(32 * time.Second)
	if s, want := p.line(), "watch silent 1m5s (overdue): last event 1m5s ago, bookmark 1m10s ago"; s != want {
		t.Fatalf("overdue: got %q, want %q", s, want)
	}
	p.step(cache.Step{Kind: cache.StepWatchEnded, ResourceVersion: "11"})
	if s, want := p.line(), "podwatch: the server ended the watch; watching again from rv 11"; s != want {
		t.Fatalf("after the watch ended: got %q, want %q", s, want)
	}
}
