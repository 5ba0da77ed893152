package cache

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// Found by TestConverge (kind none, seed 14, a model server that ignores
// sendInitialEvents): a server that does not honour a watch list's
// NotOlderThan watches from the version asked, and once that version is
// compacted answers 410 — as an answer or as an ERROR event. The reflector
// retried the watch list from the same version after each backoff, forever,
// and never pushed again. A 410 to a watch list must fall back to a list,
// which copes with it.
func TestRegressWatchListGoneFallsBackToList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		again watchAnswer
	}{
		{"410 answer", watchAnswer{err: gone()}},
		{"410 ERROR event", watchAnswer{events: []watch.Event[*api.Pod]{errEvent(410, meta.ReasonExpired)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{
					lists: []listAnswer{{items: []*api.Pod{pod("a", "3"), pod("b", "8")}, rv: "20"}},
					watches: []watchAnswer{
						// The first watch list, then the watch it becomes ends with a 410.
						{events: []watch.Event[*api.Pod]{ev(watch.Added, "a", "3"), bookmark("5", true), errEvent(410, meta.ReasonExpired)}},
						// The watch list that relists: the server watches from 5.
						tc.again,
						// Were the watch list tried again, it would hold here, unanswered.
					},
				}
				_, pushes, _ := runReflector(t, lw, ReflectorOptions{WatchList: true}, 10*time.Minute)
				lists, watches := lw.requests()
				if diff := cmp.Diff([]ListOptions{{ResourceVersion: "5", ResourceVersionMatch: MatchNotOlderThan}}, lists); diff != "" {
					t.Fatalf("list requests after the watch list's 410 (-want +got):\n%s\nwatches: %+v", diff, watches)
				}
				if got := watches[len(watches)-1]; got.SendInitialEvents || got.ResourceVersion != "20" {
					t.Fatalf("last watch %+v, want a plain watch from the listed version 20", got)
				}
				want := []push{{[]string{"a@3"}, "5"}, {[]string{"a@3", "b@8"}, "20"}}
				if diff := cmp.Diff(want, pushes); diff != "" {
					t.Fatalf("pushes (-want +got):\n%s", diff)
				}
			})
		})
	}
}
