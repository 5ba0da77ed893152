package stall

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/internal/trace"
)

// DefaultAfter is how long an open watch may go without a byte before the
// trace tells its silence. Well short of the apiserver's minute between
// bookmarks, so a silence is told before the verdict can be "overdue".
const DefaultAfter = 30 * time.Second

// The apiserver's cadence, as its watch cache (v1.37.2) keeps it, for a
// watch that asked for bookmarks. It sends a bookmark about every minute and
// one about 2 s before the watch's timeoutSeconds end it, but only once its
// cache holds a resourceVersion newer than the one the watch started from:
// until then a watch gets no bookmark at all. The bundled recordings
// (timeoutSeconds=4) show the bookmark before the end, 1 to 3 s ahead of it;
// a 150 s watch of the real v1.37.2 apiserver got them at 59.5 s, 119.3 s,
// 147.3 s and 148.4 s, and its end at 150.0 s.
const (
	bookmarkEvery     = time.Minute
	bookmarkBeforeEnd = 2 * time.Second
	// bookmarkSlack covers the cache's bookmark timer (it ticks every 0.75
	// to 1.25 s), its schedule (kept in whole seconds) and the trip.
	bookmarkSlack = 3 * time.Second
	// endSlack is how far past its timeoutSeconds a watch may run before it
	// is presumed dead: the server's timer starts before the client's
	// headers arrive, so a little covers the trip and a loaded server.
	endSlack = 5 * time.Second
	// serverTimeout is the longest the apiserver keeps a watch that sent no
	// timeoutSeconds: it picks one between --min-request-timeout (1800 s by
	// default) and twice that.
	serverTimeout = 2 * 1800 * time.Second
)

// verdictRank orders the verdicts, mildest first (trace.VerdictQuiet).
func verdictRank(v string) int {
	switch v {
	case trace.VerdictQuiet:
		return 1
	case trace.VerdictOverdue:
		return 2
	case trace.VerdictDead:
		return 3
	}
	return 0
}

// Silence follows one open watch for its stall verdict: what it asked for,
// and when its headers, its last byte, its last event and its last bookmark
// came. A Check keeps one for each watch; the progress line keeps one for
// the reflector's current watch. Not safe for concurrent use.
type Silence struct {
	bookmarks bool
	timeout   time.Duration
	startRV   uint64 // the resourceVersion the watch starts after (0: none)
	watchList bool   // its initial events come first, up to a bookmark

	opened, lastByte, lastEvent, lastBookmark time.Time
	// moved is when the watch first showed that the server's cache is past
	// the version it started from: from then on, bookmarks are due.
	moved time.Time
}

// NewSilence reads what a watch request asks that bears on its silences:
// allowWatchBookmarks, timeoutSeconds, resourceVersion and sendInitialEvents.
func NewSilence(q url.Values) Silence {
	s := Silence{bookmarks: q.Get("allowWatchBookmarks") == "true", watchList: q.Get("sendInitialEvents") == "true"}
	if secs, err := strconv.ParseInt(q.Get("timeoutSeconds"), 10, 64); err == nil && secs > 0 {
		s.timeout = time.Duration(secs) * time.Second
	}
	s.startRV, _ = strconv.ParseUint(q.Get("resourceVersion"), 10, 64)
	return s
}

// Opened notes the response headers: every age counts from them until
// something comes.
func (s *Silence) Opened(now time.Time) {
	s.opened, s.lastByte = now, now
}

// Byte notes a read of the body.
func (s *Silence) Byte(now time.Time) { s.lastByte = now }

// Event notes an event of type typ with resourceVersion rv; initialEnd marks
// the bookmark that ends a watch list's initial events.
func (s *Silence) Event(now time.Time, typ, rv string, initialEnd bool) {
	s.lastEvent = now
	switch {
	case typ == "BOOKMARK":
		s.lastBookmark = now
		if initialEnd {
			s.watchList = false // what comes next is news
		} else {
			s.movedAt(now) // a bookmark the cache sent on its own: it has moved
		}
	case s.watchList || typ == "ERROR":
	default:
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil && n > s.startRV {
			s.movedAt(now)
		}
	}
}

func (s *Silence) movedAt(now time.Time) {
	if s.moved.IsZero() {
		s.moved = now
	}
}

// Since is how long the watch has gone without a byte.
func (s *Silence) Since(now time.Time) time.Duration { return now.Sub(s.lastByte) }

// Judge is the watch's silence at now, with its verdict and why.
func (s *Silence) Judge(now time.Time) *trace.Stall {
	st := &trace.Stall{
		SinceByte:     now.Sub(s.lastByte),
		SinceEvent:    now.Sub(latest(s.lastEvent, s.opened)),
		SinceBookmark: now.Sub(latest(s.lastBookmark, s.opened)),
		Bookmarks:     s.bookmarks,
		Timeout:       s.timeout,
	}
	st.Verdict, st.Explain = s.verdict(now)
	return st
}

func latest(t, or time.Time) time.Time {
	if t.IsZero() {
		return or
	}
	return t
}

// verdict applies the rules, the gravest first.
func (s *Silence) verdict(now time.Time) (string, string) {
	open := now.Sub(s.opened)
	if limit := s.serverLimit(); open > limit+endSlack {
		return trace.VerdictDead, fmt.Sprintf("open %s, past the %s after which the server ends a watch (%s), and not ended: "+
			"the server is stopped or the connection is gone", ms(open), ms(limit), s.limitWhy())
	}
	due, why := s.bookmarkDue()
	if !due.IsZero() && now.Sub(due) > bookmarkSlack {
		return trace.VerdictOverdue, fmt.Sprintf("%s; none for %s, %s past due: the server or the connection may be stuck",
			why, ms(now.Sub(latest(s.lastBookmark, s.opened))), ms(now.Sub(due)))
	}
	end := ms(s.serverLimit() - open)
	switch {
	case !s.bookmarks:
		return trace.VerdictQuiet, "no bookmarks asked (allowWatchBookmarks): a watch whose pods do not change stays silent until the server ends it, in " + end
	case s.moved.IsZero():
		return trace.VerdictQuiet, "nothing this watch has seen shows the server's watch cache past its resourceVersion, and the server sends bookmarks only then: " +
			"silence is allowed until the server ends the watch, in " + end
	case due.IsZero():
		return trace.VerdictQuiet, "the bookmark the server sends about 2 s before timeoutSeconds has come; nothing more is due before it ends the watch, in " + end
	case now.After(due):
		return trace.VerdictQuiet, fmt.Sprintf("%s: it is %s late, within the slack of the server's bookmark timer", why, ms(now.Sub(due)))
	}
	return trace.VerdictQuiet, fmt.Sprintf("%s: the next is due in %s", why, ms(due.Sub(now)))
}

// serverLimit is how long the server keeps this watch open.
func (s *Silence) serverLimit() time.Duration {
	if s.timeout > 0 {
		return s.timeout
	}
	return serverTimeout
}

func (s *Silence) limitWhy() string {
	if s.timeout > 0 {
		return "its timeoutSeconds"
	}
	return "no timeoutSeconds sent: at most twice the apiserver's --min-request-timeout, 1800 s by default"
}

// bookmarkDue is when the server owes this watch its next bookmark, and
// why; zero when it owes none (none asked, its cache has not moved, or the
// watch ends first).
func (s *Silence) bookmarkDue() (time.Time, string) {
	if !s.bookmarks || s.moved.IsZero() {
		return time.Time{}, ""
	}
	since := latest(s.lastBookmark, s.moved)
	if since.Before(s.moved) {
		since = s.moved
	}
	due := since.Add(bookmarkEvery)
	why := "the server's cache has moved past this watch, so it sends a bookmark about every minute"
	if s.timeout > 0 {
		if beforeEnd := s.opened.Add(s.timeout - bookmarkBeforeEnd); beforeEnd.After(since) && beforeEnd.Before(due) {
			due = beforeEnd
			why = "the server's cache has moved past this watch, so it sends a bookmark about 2 s before timeoutSeconds end the watch"
		}
		if !due.Before(s.opened.Add(s.timeout)) {
			return time.Time{}, "" // the watch ends first
		}
	}
	return due, why
}

// ms shows a duration to the millisecond, as the text trace shows them.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
