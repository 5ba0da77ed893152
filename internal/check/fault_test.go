package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/wire"
)

// A fault server is the model apiserver with one fault of a watch server
// put in by a layer in front of it, and throwaway pods taken (POST, PUT,
// DELETE) so that --write runs work; each write compacts the history to
// it, so that older versions (and continue tokens) are gone. Ticks move
// the newest version on, as writes to other resources do, so that
// bookmarks move too.

// faultServer starts a fault server with fault (nil: none).
func faultServer(t *testing.T, fault func(*faultCtx)) string {
	t.Helper()
	return startFaults(t, &faults{fault: fault})
}

// startFaults serves fs, which it completes, until the test ends.
func startFaults(t *testing.T, fs *faults) string {
	t.Helper()
	srv := model.NewServer(model.NewHistory(100), model.Options{GoneAsEvent: true, BookmarkEvery: 300 * time.Millisecond})
	t.Cleanup(srv.Close)
	fs.srv = srv
	for i := range 3 {
		if err := fs.apply(model.Create, model.Pod{Namespace: "default", Name: fmt.Sprintf("pod-%d", i), Node: "node-a", Image: "registry.invalid/app:1", Phase: "Pending"}); err != nil {
			t.Fatal(err)
		}
	}
	// Versions before the pods' are gone: a watch from the oldest pod's
	// version is due a 410.
	fs.mu.Lock()
	srv.Tick(10)
	srv.Compact(srv.RV())
	fs.mu.Unlock()
	hs := httptest.NewServer(fs)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				fs.mu.Lock()
				srv.Tick(1)
				fs.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return hs.URL
}

type faults struct {
	srv   *model.Server
	fault func(*faultCtx)
	mu    sync.Mutex // orders writes and ticks: each takes the next version
	uid   int
	// refuseDeletes answers every DELETE with a 500.
	refuseDeletes bool
}

// apply makes one change at the next version.
func (f *faults) apply(op model.Op, p model.Pod) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p.RV = f.srv.RV() + 1
	if op == model.Create {
		f.uid++
		p.UID = fmt.Sprintf("uid-%d", f.uid)
	}
	return f.srv.Apply(model.Change{Op: op, Pod: p})
}

// faultCtx is one request going through the fault layer: the request (to
// change) and a rewrite of each event line the model writes.
type faultCtx struct {
	r       *http.Request
	q       url.Values
	srv     *model.Server
	rewrite func(line []byte) (out [][]byte, stop bool)
}

func (f *faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		f.write(w, r)
		return
	}
	fc := &faultCtx{r: r, q: r.URL.Query(), srv: f.srv}
	if f.fault != nil {
		f.fault(fc)
	}
	r.URL.RawQuery = fc.q.Encode()
	if fc.rewrite != nil {
		w = &lineWriter{ResponseWriter: w, rewrite: fc.rewrite}
	}
	f.srv.ServeHTTP(w, r)
}

// write takes a throwaway pod's create, update or delete.
func (f *faults) write(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"), "/")
	if len(parts) < 2 || parts[1] != "pods" {
		apiwire.NotFound().Write(w)
		return
	}
	ns := parts[0]
	var p model.Pod
	var op model.Op
	switch r.Method {
	case http.MethodPost, http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		pod, err := api.DecodePod(b)
		if err != nil {
			apiwire.BadRequest(err.Error()).Write(w)
			return
		}
		p = model.Pod{Namespace: ns, Name: pod.Metadata.Name, Node: pod.Spec.NodeName, Image: "registry.invalid/app:1", Phase: "Pending"}
		op = model.Create
		if r.Method == http.MethodPut {
			op = model.Spec
			cur, _ := f.srv.History().Current("")
			for _, c := range cur {
				if c.Key() == ns+"/"+p.Name {
					p = c
				}
			}
			p.Image = fmt.Sprintf("registry.invalid/app:%d", f.srv.RV()+1)
		}
	case http.MethodDelete:
		if f.refuseDeletes {
			apiwire.Status{Code: http.StatusInternalServerError, Reason: "InternalError", Message: "deletes refused"}.Write(w)
			return
		}
		if len(parts) < 3 {
			apiwire.NotFound().Write(w)
			return
		}
		cur, _ := f.srv.History().Current("")
		found := false
		for _, c := range cur {
			if c.Key() == ns+"/"+parts[2] {
				p, found = c, true
			}
		}
		if !found {
			apiwire.NotFound().Write(w)
			return
		}
		op = model.Delete
	default:
		apiwire.NotFound().Write(w)
		return
	}
	if err := f.apply(op, p); err != nil {
		apiwire.Status{Code: http.StatusConflict, Reason: "Conflict", Message: err.Error()}.Write(w)
		return
	}
	f.srv.Compact(f.srv.RV())
	got, _ := f.srv.History().Pod(ns+"/"+p.Name, f.srv.RV())
	if op == model.Delete {
		got = p
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(got.JSON())
}

// errStopped ends a body where a fault says so.
var errStopped = errors.New("fault: stream closed")

// lineWriter hands each write of the model (one event line, or one line of
// a list) to rewrite.
type lineWriter struct {
	http.ResponseWriter
	rewrite func([]byte) ([][]byte, bool)
}

func (l *lineWriter) Write(b []byte) (int, error) {
	out, stop := l.rewrite(b)
	for _, o := range out {
		if _, err := l.ResponseWriter.Write(o); err != nil {
			return 0, err
		}
	}
	if stop {
		l.Flush()
		return 0, errStopped
	}
	return len(b), nil
}

func (l *lineWriter) Flush() { l.ResponseWriter.(http.Flusher).Flush() }

// line kinds the faults look for.
func isEvent(line []byte, typ string) bool {
	return bytes.HasPrefix(line, []byte(`{"type":"`+typ+`"`))
}

func isEndBookmark(line []byte) bool {
	return isEvent(line, apiwire.Bookmark) && bytes.Contains(line, []byte(apiwire.InitialEventsEnd))
}

func (fc *faultCtx) is(name, value string) bool { return fc.q.Get(name) == value }

func (fc *faultCtx) watchList() bool { return fc.is("sendInitialEvents", "true") }

func (fc *faultCtx) watchFromRV() bool {
	rv := fc.q.Get("resourceVersion")
	watch := fc.is("watch", "true") || strings.Contains(fc.r.URL.Path, "/watch/")
	return watch && !fc.watchList() && rv != "" && rv != "0"
}

// The faults, each named for the check it must fail.
var faultCases = []struct {
	name  string
	check string
	write bool // the fault shows only to a run with --write
	fault func(*faultCtx)
}{
	{"watch list without the end bookmark", "watch-list-initial-events-end", false, func(fc *faultCtx) {
		if fc.watchList() {
			fc.rewrite = func(line []byte) ([][]byte, bool) {
				if isEndBookmark(line) {
					return nil, false
				}
				return [][]byte{line}, false
			}
		}
	}},
	{"end bookmark without the annotation", "watch-list-initial-events-end", false, func(fc *faultCtx) {
		if fc.watchList() {
			fc.rewrite = func(line []byte) ([][]byte, bool) {
				if isEndBookmark(line) {
					rv := bookmarkRV(line)
					return [][]byte{apiwire.Event(apiwire.Bookmark, apiwire.PodBookmark(rv, false))}, false
				}
				return [][]byte{line}, false
			}
		}
	}},
	{"stream closed after the bookmark", "watch-list-stays-open", false, func(fc *faultCtx) {
		if fc.watchList() {
			fc.rewrite = func(line []byte) ([][]byte, bool) { return [][]byte{line}, isEndBookmark(line) }
		}
	}},
	{"resourceVersion goes back", "watch-rv-order", false, func(fc *faultCtx) {
		if fc.watchFromRV() {
			var first []byte
			n := 0
			fc.rewrite = func(line []byte) ([][]byte, bool) {
				n++
				switch n {
				case 1:
					first = bytes.Clone(line)
				case 2:
					return [][]byte{line, first}, false
				}
				return [][]byte{line}, false
			}
		}
	}},
	{"no bookmarks", "bookmark-before-timeout", true, func(fc *faultCtx) {
		fc.rewrite = func(line []byte) ([][]byte, bool) {
			if isEvent(line, apiwire.Bookmark) && !isEndBookmark(line) {
				return nil, false
			}
			return [][]byte{line}, false
		}
	}},
	{"200 with data where a 410 is due", "watch-too-old-410", false, func(fc *faultCtx) {
		fc.rewrite = func(line []byte) ([][]byte, bool) {
			if isEvent(line, apiwire.Error) {
				// The current state, as for a watch from "0".
				var out [][]byte
				pods, _ := fc.srv.History().Current("")
				for _, p := range pods {
					out = append(out, apiwire.Event(apiwire.Added, p.JSON()))
				}
				return out, false
			}
			return [][]byte{line}, false
		}
	}},
	{"continue token that never expires", "list-continue-expired", true, func(fc *faultCtx) {
		c, err := apiwire.DecodeContinue(fc.q.Get("continue"))
		if rv, _ := strconv.ParseInt(c.RV, 10, 64); err == nil && rv < fc.srv.Compacted() {
			c.RV = strconv.FormatInt(fc.srv.RV(), 10)
			fc.q.Set("continue", c.Encode())
		}
	}},
	{"timeoutSeconds ignored", "watch-timeout", false, func(fc *faultCtx) { delete(fc.q, "timeoutSeconds") }},
}

func bookmarkRV(line []byte) string {
	_, after, _ := bytes.Cut(line, []byte(`"resourceVersion":"`))
	rv, _, _ := bytes.Cut(after, []byte(`"`))
	return string(rv)
}

// The fault server without a fault passes, with --write too; each fault
// fails exactly the check named for it, with the frame (or exchange) at
// fault in its evidence.
func TestFaultsFailTheirCheck(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		for _, write := range []bool{false, true} {
			url := faultServer(t, nil)
			outs := runBattery(t, url, Options{WatchSeconds: 2, Grace: 5 * time.Second, Write: write})
			if failed := failedNames(outs); len(failed) > 0 {
				t.Errorf("write=%t: failed %v, want none", write, failed)
			}
			if !write {
				continue
			}
			for _, n := range []string{"list-continue-expired", "bookmark-before-timeout", "watch-rv-order", "watch-too-old-410"} {
				if outs[n].Result != Pass {
					t.Errorf("%s with --write: %s, want pass", n, outs[n].Result)
				}
			}
			if left := podsNamed(t, url, ThrowawayPrefix); len(left) > 0 {
				t.Errorf("throwaway pods left behind: %v", left)
			}
		}
	})
	for _, fc := range faultCases {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			outs := runBattery(t, faultServer(t, fc.fault), Options{WatchSeconds: 2, Grace: 5 * time.Second, Write: fc.write})
			if failed := failedNames(outs); len(failed) != 1 || failed[0] != fc.check {
				t.Fatalf("failed %v, want exactly [%s]", failed, fc.check)
			}
			ev := outs[fc.check].Evidence
			if len(ev.Exchanges) == 0 || ev.Requires == "" {
				t.Fatalf("%s's evidence %+v lacks the exchange or what is required", fc.check, ev)
			}
			if fc.check != "list-continue-expired" && !slices.ContainsFunc(ev.Exchanges, func(x Exchange) bool { return x.Frame != nil }) {
				t.Errorf("%s's evidence %+v points at no frame", fc.check, ev)
			}
			if strings.HasPrefix(fc.check, "watch-list-initial") && !strings.Contains(ev.Summary, InitialEventsEnd) {
				t.Errorf("%s's summary %q does not name %s", fc.check, ev.Summary, InitialEventsEnd)
			}
		})
	}
}

func failedNames(outs map[string]Outcome) []string {
	var names []string
	for _, n := range Names() {
		if outs[n].Result == Fail {
			names = append(names, n)
		}
	}
	return names
}

// podsNamed lists the server's pods whose names start with prefix.
func podsNamed(t *testing.T, url, prefix string) []string {
	t.Helper()
	c, err := rest.NewClient(rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get().Resource("pods").Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	l, err := rest.DecodeList(resp.Body, wire.JSON, api.Codec, rest.ListLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Items {
		if strings.HasPrefix(p.Metadata.Name, prefix) {
			names = append(names, p.Metadata.Name)
		}
	}
	return names
}

// Throwaway pods the server will not delete make Run say so, beside the
// outcomes.
func TestLeftoverPodsAreReported(t *testing.T) {
	url := startFaults(t, &faults{refuseDeletes: true})
	outs, err := Run(context.Background(), Options{Config: rest.Config{Host: url}, Only: []string{"watch-from-rv"}, Write: true, WatchSeconds: 2, Grace: 5 * time.Second})
	var cleanup *CleanupError
	if !errors.As(err, &cleanup) || cleanup.Namespace != "default" {
		t.Fatalf("Run: %v, want a *CleanupError for namespace default", err)
	}
	if len(outs) != 2 || outs[1].Result != Pass {
		t.Fatalf("outcomes %+v, want list-consistent and watch-from-rv passing", outs)
	}
	if left := podsNamed(t, url, ThrowawayPrefix); len(left) != 1 {
		t.Fatalf("throwaway pods %v, want the one the server kept", left)
	}
}

// A server whose history moves past the list's version before the watch is
// asked (a compaction between the two) ends that watch with a 410 at once;
// watch-timeout asks once more from a fresh list and judges the second
// watch, and fails when every watch is too old.
func TestWatchTimeoutAsksAgainPastACompaction(t *testing.T) {
	for _, tt := range []struct {
		name    string
		times   int // how many timed watches find their version compacted
		passing bool
	}{
		{"once", 1, true},
		{"every time", 100, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := &faults{}
			var mu sync.Mutex
			left := tt.times
			fs.fault = func(fc *faultCtx) {
				if fc.q.Get("watch") != "true" || fc.q.Get("timeoutSeconds") == "" {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if left == 0 {
					return
				}
				left--
				// A change and a compaction up to it, between the list and
				// the watch.
				if err := fs.apply(model.Status, model.Pod{Namespace: "default", Name: "pod-0", Node: "node-a", Image: "registry.invalid/app:1", Phase: "Running"}); err != nil {
					t.Error(err)
				}
				fs.srv.Compact(fs.srv.RV())
			}
			url := startFaults(t, fs)
			outs := runBattery(t, url, Options{WatchSeconds: 2, Grace: 5 * time.Second, Only: []string{"watch-timeout"}})
			got := outs["watch-timeout"]
			if passed := got.Result == Pass; passed != tt.passing {
				t.Fatalf("watch-timeout %s (%s), want passing %t", got.Result, got.Evidence.Summary, tt.passing)
			}
		})
	}
}
