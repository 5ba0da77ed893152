package text

import (
	"fmt"

	"github.com/podwatch/podwatch/internal/trace"
)

var verdictColors = map[string]string{trace.VerdictQuiet: yellow, trace.VerdictOverdue: bold + yellow, trace.VerdictDead: bold + red}

// stallText is a stall's line: the verdict and the ages it rests on, then
// what the silence means for this watch.
func stallText(req string, s *trace.Stall) (string, string, string, []string) {
	text := fmt.Sprintf("%s: no byte for %s, no event for %s", s.Verdict, Duration(s.SinceByte), Duration(s.SinceEvent))
	if s.Bookmarks {
		text += ", no bookmark for " + Duration(s.SinceBookmark)
	}
	asked := "bookmarks not asked"
	if s.Bookmarks {
		asked = "allowWatchBookmarks=true"
	}
	if s.Timeout > 0 {
		asked += fmt.Sprintf(", timeoutSeconds=%d", int64(s.Timeout.Seconds()))
	} else {
		asked += ", no timeoutSeconds"
	}
	return req + "stall", verdictColors[s.Verdict], text + " (" + asked + ")", []string{s.Explain}
}
