package cli

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/fault"
)

// The misbehaving servers of TestKeepsGoing, each a way an apiserver, or
// what stands in front of one, fails a client.
const (
	endlessFrame    = "endless-frame"   // the first watch list: a frame that never ends
	garbageList     = "garbage-list"    // the first list: bytes that are not JSON
	htmlEverywhere  = "html-502"        // every request: a proxy's HTML 502 page
	drippingWatch   = "drip"            // the first watch list: one byte a second
	noEndBookmark   = "no-end-bookmark" // every watch list: its objects, never the closing bookmark
	expiringPages   = "expiring-pages"  // every continued list page: 410
	misbehaveToken  = "misbehave-s3cret-token-value"
	misbehaveListRV = "10"
)

// misbehavingServer is an apiserver of two pods on node-1 that misbehaves
// in one way (one of the modes above). It counts its requests by kind.
type misbehavingServer struct {
	srv    *httptest.Server
	caFile string
	mode   string

	mu    sync.Mutex
	count map[string]int // list, continue, watch-list, watch
}

func startMisbehavingServer(t *testing.T, mode string) *misbehavingServer {
	t.Helper()
	m := &misbehavingServer{mode: mode, count: map[string]int{}}
	// TLS, since podwatch sends a bearer token over nothing else.
	m.srv = httptest.NewTLSServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	m.caFile = filepath.Join(t.TempDir(), "ca.crt")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.srv.Certificate().Raw})
	if err := os.WriteFile(m.caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *misbehavingServer) args() []string {
	return []string{"--server", m.srv.URL, "--certificate-authority", m.caFile, "--token", misbehaveToken, "--node", node1}
}

func (m *misbehavingServer) requests(kind string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count[kind]
}

func (m *misbehavingServer) total() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.count {
		n += c
	}
	return n
}

func misbehavePod(name, rv string) []byte {
	return fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"default","uid":"uid-%s","resourceVersion":%q},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"busybox"}]}}`,
		name, name, rv, node1)
}

var misbehavePods = [][]byte{misbehavePod("pod-a", "5"), misbehavePod("pod-b", "6")}

func (m *misbehavingServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+misbehaveToken {
		apiwire.Status{Code: 401, Reason: "Unauthorized", Message: "Unauthorized"}.Write(w)
		return
	}
	q := r.URL.Query()
	kind := "list"
	switch {
	case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
		kind = "watch-list"
	case q.Get("watch") == "true":
		kind = "watch"
	case q.Get("continue") != "":
		kind = "continue"
	}
	m.mu.Lock()
	m.count[kind]++
	nth := m.count[kind]
	m.mu.Unlock()

	if m.mode == htmlEverywhere {
		fault.Answer(w, fault.Fault{Kind: fault.HTML, Status: http.StatusBadGateway})
		return
	}
	switch kind {
	case "list":
		m.list(w, r, nth, q.Get("limit") != "")
	case "continue":
		if m.mode == expiringPages {
			apiwire.Gone("The provided continue parameter is too old to display a consistent list result.").Write(w)
			return
		}
		m.write(w, r, nil, apiwire.ListPage("PodList", apiwire.ListMeta{ResourceVersion: misbehaveListRV}, misbehavePods[1:]))
	case "watch-list":
		m.watchList(w, r, nth)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func (m *misbehavingServer) list(w http.ResponseWriter, r *http.Request, nth int, limited bool) {
	var f *fault.Fault
	if m.mode == garbageList && nth == 1 {
		f = &fault.Fault{Kind: fault.Garbage}
	}
	md := apiwire.ListMeta{ResourceVersion: misbehaveListRV}
	items := misbehavePods
	if limited {
		md.Continue = apiwire.Continue{RV: misbehaveListRV, After: "default/pod-a"}.Encode()
		items = items[:1]
	}
	m.write(w, r, f, apiwire.ListPage("PodList", md, items))
}

func (m *misbehavingServer) watchList(w http.ResponseWriter, r *http.Request, nth int) {
	var f *fault.Fault
	switch {
	case m.mode == endlessFrame && nth == 1:
		f = &fault.Fault{Kind: fault.Oversized, Size: 1 << 40}
	case m.mode == drippingWatch && nth == 1:
		f = &fault.Fault{Kind: fault.Drip, Wait: time.Second}
	}
	var body []byte
	for _, p := range misbehavePods {
		body = append(body, apiwire.Event(apiwire.Added, p)...)
	}
	if m.mode != noEndBookmark {
		body = append(body, apiwire.PodBookmark(misbehaveListRV, true)...)
	}
	m.write(w, r, f, body)
	<-r.Context().Done() // a watch stays open
}

// write answers 200 with body, through fault f when not nil.
func (m *misbehavingServer) write(w http.ResponseWriter, r *http.Request, f *fault.Fault, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if f == nil {
		w.Write(body)
		w.(http.Flusher).Flush()
		return
	}
	fw := fault.NewWriter(r.Context(), w, *f)
	if _, err := fw.Write(body); err == fault.ErrCut {
		fault.Abort()
	}
	w.(http.Flusher).Flush()
}

// TestKeepsGoing runs the command against each misbehaving server: it keeps
// running, retries at the backoff's pace (counted: no more than two requests
// a round, a watch list and the list that follows it), says on stderr what went
// wrong, syncs where the server lets it, never prints the token, and exits 0
// on Ctrl-C.
func TestKeepsGoing(t *testing.T) {
	clitest.Isolate(t)
	for _, tc := range []struct {
		mode  string
		flags []string
		// stderr waits for these, in order; synced waits for both pods on stdout.
		stderr []string
		synced bool
	}{
		{mode: endlessFrame, stderr: []string{"longer than the", "listing instead"}, synced: true},
		{mode: garbageList, flags: []string{"--watch-list=false"}, stderr: []string{"invalid", "retrying in"}, synced: true},
		{mode: htmlEverywhere, stderr: []string{"502", "retrying in", "retrying in", "retrying in"}},
		{mode: drippingWatch, flags: []string{"--watch-list-timeout=3s"}, stderr: []string{"no initial-events-end bookmark within 3s", "listing instead"}, synced: true},
		{mode: noEndBookmark, flags: []string{"--watch-list-timeout=1s"}, stderr: []string{"no initial-events-end bookmark within 1s (2 objects streamed)", "listing instead"}, synced: true},
		{mode: expiringPages, flags: []string{"--chunk-size=1", "--watch-list=false"}, synced: true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			m := startMisbehavingServer(t, tc.mode)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdout, stderr := clitest.NewSyncBuffer(), clitest.NewSyncBuffer()
			waited := make(chan error, 2)
			go func() {
				defer cancel()
				waited <- stderr.WaitInOrder(tc.stderr)
				if tc.synced {
					waited <- stdout.WaitFor("pod-b")
				}
			}()
			args := append(append([]string{"watch", "-v", "8"}, m.args()...), tc.flags...)
			r := runCtx(t, ctx, stdout, stderr, args...)
			close(waited)
			for err := range waited {
				if err != nil {
					t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
				}
			}
			if r.code != 0 {
				t.Fatalf("exit %d after Ctrl-C, want 0\nstderr:\n%s", r.code, r.stderr)
			}
			if tc.synced && !strings.Contains(r.stdout, "pod-a") {
				t.Fatalf("stdout shows no pod-a, want both pods synced:\n%s", r.stdout)
			}
			if strings.Contains(r.stdout+r.stderr, misbehaveToken) {
				t.Fatalf("the bearer token is in the output:\n%s\n%s", r.stdout, r.stderr)
			}
			retries := strings.Count(r.stderr, "; retrying in ")
			// Each round sends a watch list and the list after it; the
			// round that syncs adds a continued page and the watch.
			if n := m.total(); n > 2*(retries+1)+2 {
				t.Fatalf("%d requests for %d retries, want at most two a round (the backoff's pace), two more to sync\nstderr:\n%s", n, retries, r.stderr)
			}
			if tc.mode == expiringPages {
				if c, l := m.requests("continue"), m.requests("list"); c != 1 || l != 2 {
					t.Fatalf("%d continued pages and %d lists, want 1 and 2: the page that expired, then one list without limit", c, l)
				}
			}
		})
	}
}
