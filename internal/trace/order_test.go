package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/wire"
)

// testPod is the least object a reflector can keep.
type testPod struct{ meta.ObjectMeta }

func (p *testPod) Meta() *meta.ObjectMeta { return &p.ObjectMeta }

func decodeTestPod(data []byte) (*testPod, error) {
	var v struct {
		Metadata struct {
			Name, Namespace, ResourceVersion string
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return &testPod{meta.ObjectMeta{Name: v.Metadata.Name, Namespace: v.Metadata.Namespace, ResourceVersion: v.Metadata.ResourceVersion}}, nil
}

func podJSON(name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","resourceVersion":%q}}`, name, rv)
}

// fakeServer lists one pod, then answers a watch with every event in a
// single write, so the watcher's goroutine is free to read ahead of the
// reflector, and holds the watch open.
func fakeServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			io.WriteString(w, `{"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[`+podJSON("a", "9")+`]}`)
			return
		}
		io.WriteString(w, `{"type":"ADDED","object":`+podJSON("b", "11")+"}\n"+
			`{"type":"MODIFIED","object":`+podJSON("a", "12")+"}\n"+
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"13"}}}`+"\n"+
			`{"type":"DELETED","object":`+podJSON("b", "14")+"}\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runTraced runs a reflector with every piece of an Instrument wired in
// against srv until its fourth push, and returns the trace as JSON lines.
func runTraced(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return runTracedAs(t, srv, wire.ContentTypeJSON)
}

// runTracedAs is runTraced with the client asking for contentType.
func runTracedAs(t *testing.T, srv *httptest.Server, contentType string) string {
	t.Helper()
	var out bytes.Buffer
	tr := New(Options{Sinks: []Sink{JSON(&out)}, Clock: func() time.Time { return time.Time{} }})
	tr.Begin(srv.URL, "test")
	in := NewInstrument[*testPod](tr)
	cfg := rest.Config{Host: srv.URL, ContentType: contentType}
	in.Configure(&cfg)
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	pushes := 0
	fourth := make(chan struct{})
	store := in.WrapStore(cache.NewUndeltaStore(func(items []*testPod, rv string) {
		in.Pushed(items, rv)
		mu.Lock()
		defer mu.Unlock()
		if pushes++; pushes == 4 {
			close(fourth)
		}
	}, cache.MetaNamespaceKey[*testPod]))
	lw := cache.NewListWatchFromClient(c, "pods", "", "", meta.Codec[*testPod]{JSON: decodeTestPod})
	r := cache.NewReflector[*testPod](lw, store, cache.ReflectorOptions{Observe: in.Observe, Rand: func() float64 { return 0 }})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	select {
	case <-fourth:
	case <-time.After(30 * time.Second):
		t.Fatalf("no fourth push within 30s; trace so far:\n%s", out.String())
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the reflector did not stop within 30s")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestOrderIsTheClients checks that a trace tells a watch in the order the
// client acts on it (each event just before its push), whatever the watcher
// read ahead, and so the same on every run.
func TestOrderIsTheClients(t *testing.T) {
	srv := fakeServer(t)
	want := []string{
		"start", "decision list", "request", "response", "body-end eof", "decision replace", "push",
		"decision resource-version", "decision watch", "request", "response",
		"event ADDED", "push", "decision resource-version",
		"event MODIFIED", "push", "decision resource-version",
		"event BOOKMARK", "decision resource-version",
		"event DELETED", "push", "decision resource-version",
		"body-end closed", "decision stopped", "stop",
	}
	for i := 0; i < 20; i++ {
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(runTraced(t, srv)), "\n") {
			var s struct {
				Kind     string
				Decision struct{ Step string }
				Event    struct{ Type string }
				BodyEnd  struct{ How string } `json:"body-end"`
			}
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("not JSON: %v: %s", err, line)
			}
			switch s.Kind {
			case "read":
				continue // how many depends on the network
			case "decision":
				s.Kind += " " + s.Decision.Step
			case "event":
				s.Kind += " " + s.Event.Type
			case "body-end":
				s.Kind += " " + s.BodyEnd.How
			}
			got = append(got, s.Kind)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("run %d (-want +got):\n%s", i, diff)
		}
	}
}
