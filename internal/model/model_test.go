package model

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/rest/api"
)

// fixture: p0 on node-a at 1, p1 on node-b at 2, p2 unbound at 3, p0's image
// at 4, p2 bound to node-a at 5, p0 deleted at 6; RV 7 is another resource's.
func fixture(t *testing.T, opts Options) *Server {
	t.Helper()
	s := NewServer(NewHistory(0), opts)
	t.Cleanup(s.Close)
	p0 := Pod{Namespace: "default", Name: "p0", UID: "u0", RV: 1, Node: "node-a", Image: "i:1", Phase: "Pending"}
	p1 := Pod{Namespace: "default", Name: "p1", UID: "u1", RV: 2, Node: "node-b", Image: "i:1", Phase: "Pending"}
	p2 := Pod{Namespace: "default", Name: "p2", UID: "u2", RV: 3, Image: "i:1", Phase: "Pending"}
	p0b := p0
	p0b.RV, p0b.Image = 4, "i:2"
	p2b := p2
	p2b.RV, p2b.Node = 5, "node-a"
	p0c := p0b
	p0c.RV = 6
	for _, c := range []Change{{Op: Create, Pod: p0}, {Op: Create, Pod: p1}, {Op: Create, Pod: p2}, {Op: Spec, Pod: p0b}, {Op: Bind, Pod: p2b}, {Op: Delete, Pod: p0c}} {
		if err := s.Apply(c); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}
	s.Tick(1)
	return s
}

type listBody struct {
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int   `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
	Code  int               `json:"code"`
}

// get sends path to s and returns the status and the decoded body.
func get(t *testing.T, s *Server, path string) (int, listBody) {
	t.Helper()
	c := &http.Client{Transport: s.Transport()}
	defer c.CloseIdleConnections()
	resp, err := c.Get(URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var b listBody
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatalf("GET %s: decode: %v", path, err)
	}
	return resp.StatusCode, b
}

func names(t *testing.T, items []json.RawMessage) []string {
	t.Helper()
	out := []string{}
	for _, it := range items {
		p, err := api.DecodePod(it)
		if err != nil {
			t.Fatalf("decode item: %v", err)
		}
		out = append(out, p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
	}
	return out
}

func TestListResourceVersionSemantics(t *testing.T) {
	const node = "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a"
	for _, tc := range []struct {
		name, query string
		code        int
		rv          string
		items       []string
	}{
		{"unset: the newest state", "", 200, "7", []string{"p2@5"}},
		{"0: any state, here stale by 2", "&resourceVersion=0&limit=1", 200, "5", []string{"p0@4", "p2@5"}},
		{"NotOlderThan an old version: the newest", "&resourceVersion=2&resourceVersionMatch=NotOlderThan", 200, "7", []string{"p2@5"}},
		{"a version without limit is NotOlderThan", "&resourceVersion=2", 200, "7", []string{"p2@5"}},
		{"Exact", "&resourceVersion=4&resourceVersionMatch=Exact", 200, "4", []string{"p0@4"}},
		{"a version with limit is Exact (legacy)", "&resourceVersion=5&limit=10", 200, "5", []string{"p0@4", "p2@5"}},
		{"Exact compacted", "&resourceVersion=2&resourceVersionMatch=Exact", 410, "", nil},
		{"too large", "&resourceVersion=9", 504, "", nil},
		{"match without version", "&resourceVersionMatch=NotOlderThan", 422, "", nil},
		{"Exact 0", "&resourceVersion=0&resourceVersionMatch=Exact", 422, "", nil},
		{"continue with a version", "&continue=x&resourceVersion=5", 400, "", nil},
		{"bad continue", "&continue=x", 400, "", nil},
		{"bad version", "&resourceVersion=abc", 400, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fixture(t, Options{StaleZero: 2})
				s.Compact(3)
				code, b := get(t, s, node+tc.query)
				if code != tc.code {
					t.Fatalf("got %d, want %d", code, tc.code)
				}
				if code != 200 {
					if b.Code != code {
						t.Fatalf("Status code %d, want %d", b.Code, code)
					}
					return
				}
				if b.Metadata.ResourceVersion != tc.rv {
					t.Fatalf("list at %q, want %q", b.Metadata.ResourceVersion, tc.rv)
				}
				if diff := cmp.Diff(tc.items, names(t, b.Items)); diff != "" {
					t.Fatalf("items (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestListPagesKeepTheirSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fixture(t, Options{})
		code, b := get(t, s, "/api/v1/pods?limit=1")
		if code != 200 || b.Metadata.Continue == "" || b.Metadata.RemainingItemCount == nil || *b.Metadata.RemainingItemCount != 1 {
			t.Fatalf("first page: %d %+v, want a continue token and 1 remaining", code, b.Metadata)
		}
		// A change after the first page is not in the second.
		p1, _ := s.History().Pod("default/p1", 7)
		p1.RV, p1.Phase = 8, "Running"
		if err := s.Apply(Change{Op: Status, Pod: p1}); err != nil {
			t.Fatal(err)
		}
		code, b2 := get(t, s, "/api/v1/pods?limit=1&continue="+b.Metadata.Continue)
		if code != 200 || b2.Metadata.ResourceVersion != "7" || b2.Metadata.Continue != "" {
			t.Fatalf("second page: %d %+v, want the last page at 7", code, b2.Metadata)
		}
		if diff := cmp.Diff([]string{"p1@2", "p2@5"}, append(names(t, b.Items), names(t, b2.Items)...)); diff != "" {
			t.Fatalf("pages (-want +got):\n%s", diff)
		}
		s.Compact(8)
		if code, _ := get(t, s, "/api/v1/pods?limit=1&continue="+b.Metadata.Continue); code != 410 {
			t.Fatalf("continue from a compacted snapshot: %d, want 410", code)
		}
	})
}

// watchLines opens path and returns its first n lines, or fewer if it ends.
func watchLines(t *testing.T, s *Server, path string, n int) (int, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(ctx, "GET", URL+path, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for len(lines) < n && sc.Scan() {
		var ev struct {
			Type   string
			Object struct {
				Metadata struct {
					Name            string
					ResourceVersion string
					Annotations     map[string]string
				}
				Code int
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		line := ev.Type + " " + ev.Object.Metadata.Name + "@" + ev.Object.Metadata.ResourceVersion
		if ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true" {
			line += " end"
		}
		if ev.Type == "ERROR" {
			line = "ERROR " + http.StatusText(ev.Object.Code)
		}
		lines = append(lines, line)
	}
	return resp.StatusCode, lines
}

func TestWatchResourceVersionSemantics(t *testing.T) {
	const sel = "fieldSelector=spec.nodeName%3Dnode-a"
	for _, tc := range []struct {
		name, path string
		opts       Options
		n          int
		code       int
		want       []string
	}{
		{"from a version: changes after it, bind as ADDED", "/api/v1/pods?watch=true&resourceVersion=3&" + sel, Options{}, 3, 200,
			[]string{"MODIFIED p0@4", "ADDED p2@5", "DELETED p0@6"}},
		{"legacy path", "/api/v1/watch/pods?resourceVersion=4&" + sel, Options{}, 2, 200, []string{"ADDED p2@5", "DELETED p0@6"}},
		{"one namespace", "/api/v1/namespaces/other/pods?watch=true&resourceVersion=3&timeoutSeconds=1", Options{}, 1, 200, nil},
		{"unset: the state as ADDED", "/api/v1/pods?watch=true&" + sel, Options{}, 1, 200, []string{"ADDED p2@5"}},
		{"watch list", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&" + sel,
			Options{}, 2, 200, []string{"ADDED p2@5", "BOOKMARK @7 end"}},
		{"watch list refused", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			Options{WatchList: "refuse"}, 1, 422, nil},
		{"watch list ignored", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=4&" + sel,
			Options{WatchList: "ignore"}, 2, 200, []string{"ADDED p2@5", "DELETED p0@6"}},
		// A v1.37 apiserver serves it: the initial events, and no bookmark to end them.
		{"watch list without bookmarks", "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&" + sel, Options{}, 1, 200,
			[]string{"ADDED p2@5"}},
		{"compacted: 410", "/api/v1/pods?watch=true&resourceVersion=2", Options{}, 1, 410, nil},
		{"compacted: ERROR event", "/api/v1/pods?watch=true&resourceVersion=2", Options{GoneAsEvent: true}, 2, 200, []string{"ERROR Gone"}},
		{"bookmark when idle, at the newest version", "/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=6&" + sel, Options{}, 1, 200,
			[]string{"BOOKMARK @7"}},
		{"bookmark before the timeout", "/api/v1/pods?watch=true&allowWatchBookmarks=true&resourceVersion=6&timeoutSeconds=5&" + sel, Options{}, 2, 200,
			[]string{"BOOKMARK @7"}},
		{"timeoutSeconds ends it", "/api/v1/pods?watch=true&resourceVersion=6&timeoutSeconds=5", Options{}, 5, 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fixture(t, tc.opts)
				s.Compact(3)
				code, got := watchLines(t, s, tc.path, tc.n)
				if code != tc.code {
					t.Fatalf("got %d, want %d", code, tc.code)
				}
				if code == 200 {
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Fatalf("events (-want +got):\n%s", diff)
					}
				}
			})
		})
	}
}

func TestWatchFollowsChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fixture(t, Options{})
		go func() {
			time.Sleep(time.Second)
			s.Apply(Change{Op: Create, Pod: Pod{Namespace: "default", Name: "p9", RV: 10, Node: "node-a"}})
		}()
		_, got := watchLines(t, s, "/api/v1/pods?watch=true&resourceVersion=7&fieldSelector=spec.nodeName%3Dnode-a", 1)
		if diff := cmp.Diff([]string{"ADDED p9@10"}, got); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
	})
}

func TestRestartRefusesThenWarmsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fixture(t, Options{WarmUp: 10 * time.Second})
		tr := s.Transport()
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequest("GET", URL+"/api/v1/pods?watch=true&resourceVersion=7", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		restarted := make(chan struct{})
		go func() {
			defer close(restarted)
			s.Restart(5*time.Second, true)
		}()
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Fatalf("an open watch ended cleanly at a restart; want its connection dropped")
		}
		synctest.Wait()
		if _, err := tr.RoundTrip(req.Clone(context.Background())); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("request while down: %v, want connection refused", err)
		}
		<-restarted
		if code, _ := get(t, s, "/api/v1/pods"); code != 403 && code != 429 && code != 503 {
			t.Fatalf("request while warming up: %d, want 403, 429 or 503", code)
		}
		time.Sleep(10 * time.Second)
		if code, _ := get(t, s, "/api/v1/pods?resourceVersion=5&resourceVersionMatch=Exact"); code != 410 {
			t.Fatalf("exact list before the fresh cache: %d, want 410", code)
		}
	})
}

func TestFaultsStrikeAsPlanned(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fixture(t, Options{Faults: []fault.Fault{{Kind: Dead, On: "list"}, {Kind: fault.Cut, On: "watch", Events: 1}}})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tr := s.Transport()
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(ctx, "GET", URL+"/api/v1/pods", nil)
		start := time.Now()
		if _, err := tr.RoundTrip(req); err == nil || time.Since(start) != time.Minute {
			t.Fatalf("dead list: %v after %v, want no answer until the client left at 1m", err, time.Since(start))
		}
		req, _ = http.NewRequest("GET", URL+"/api/v1/pods?watch=true&resourceVersion=1", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, io.ErrUnexpectedEOF) || strings.Count(string(body), "\n") != 1 {
			t.Fatalf("cut watch: %q, %v; want one event then a cut", body, err)
		}
		s.StopFaults()
		if code, _ := get(t, s, "/api/v1/pods"); code != 200 {
			t.Fatalf("after StopFaults: %d", code)
		}
		if got := s.Struck(); len(got) != 2 {
			t.Fatalf("struck %q, want both faults", got)
		}
	})
}
