package compat

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	clientfeatures "k8s.io/client-go/features"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// clientMode is one way client-go's reflector reads the server: the
// streaming watch list (client-go's default since 1.35), a plain list, or a
// list in pages; and in JSON, or asking for protobuf first as the kubelet does.
type clientMode struct {
	name      string
	watchList bool
	pageSize  int64 // the reflector's WatchListPageSize; 0 leaves it unset
	protobuf  bool  // send and accept protobuf first, JSON second
}

var clientModes = []clientMode{
	// The kubelet's own client: its content type defaults to protobuf, and
	// it accepts JSON after it.
	{name: "kubelet", watchList: true, protobuf: true},
	{name: "watchlist", watchList: true},
	{name: "list", watchList: false},
	{name: "paged", watchList: false, pageSize: 1},
}

// gateMu serialises building reflectors: client-go reads its WatchListClient
// gate, a process-wide setting, once, when a reflector is made.
var gateMu sync.Mutex

// watchListGate is client-go's own gates with WatchListClient set by the test.
type watchListGate struct {
	clientfeatures.Gates
	on bool
}

func (g watchListGate) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient {
		return g.on
	}
	return g.Gates.Enabled(f)
}

var defaultGates = clientfeatures.FeatureGates()

const (
	protobufType = "application/vnd.kubernetes.protobuf"
	jsonType     = "application/json"
)

// newKubeletReflector builds the kubelet's pod source as pkg/kubelet/config
// builds it: a ListWatch of pods on node in every namespace, through the
// core/v1 REST client, into an undelta store whose pushes go to push.
func newKubeletReflector(t *testing.T, cfg *rest.Config, node string, mode clientMode, push func([]any)) *cache.Reflector {
	t.Helper()
	if mode.protobuf {
		cfg = rest.CopyConfig(cfg)
		cfg.ContentType = protobufType
		cfg.AcceptContentTypes = protobufType + "," + jsonType
	}
	core, err := corev1.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client-go core/v1 client: %v", err)
	}
	lw := cache.NewListWatchFromClient(core.RESTClient(), "pods", metav1.NamespaceAll, fields.OneTermEqualSelector("spec.nodeName", node))
	gateMu.Lock()
	defer gateMu.Unlock()
	clientfeatures.ReplaceFeatureGates(watchListGate{Gates: defaultGates, on: mode.watchList})
	r := cache.NewReflector(lw, &v1.Pod{}, cache.NewUndeltaStore(push, cache.MetaNamespaceKeyFunc), 0)
	r.WatchListPageSize = mode.pageSize
	return r
}

// pushLog keeps every push of an undelta store as a podSet, and each request
// the client sent, and wakes waiters on each push.
type pushLog struct {
	mu       sync.Mutex
	pushes   []podSet
	requests []url.Values
	protocol []string // each response's protocol
	answers  []answer // each answer to a list or watch of pods
	changed  chan struct{}
}

func newPushLog() *pushLog { return &pushLog{changed: make(chan struct{})} }

func (l *pushLog) push(objs []any) {
	s := podSet{}
	for _, o := range objs {
		p := o.(*v1.Pod)
		rv, err := parseRV(p.ResourceVersion)
		if err != nil {
			rv = -1 // no state holds it
		}
		s[p.Namespace+"/"+p.Name] = rv
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pushes = append(l.pushes, s)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *pushLog) snapshot() (pushes []podSet, changed <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.pushes), l.changed
}

func (l *pushLog) sent() []url.Values {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.requests)
}

// recordRequests wraps a transport to note each request's query.
func (l *pushLog) recordRequests(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.requests = append(l.requests, r.URL.Query())
		l.mu.Unlock()
		resp, err := rt.RoundTrip(r)
		if err == nil {
			l.mu.Lock()
			l.protocol = append(l.protocol, resp.Proto)
			if strings.HasSuffix(r.URL.Path, "/pods") {
				l.answers = append(l.answers, answer{uri: r.URL.RequestURI(), code: resp.StatusCode, contentType: resp.Header.Get("Content-Type")})
			}
			l.mu.Unlock()
		}
		return resp, err
	})
}

func (l *pushLog) protos() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.protocol)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// waitFor waits until the newest push satisfies done, or until the bound; it
// returns every push so far and whether done was met.
func (l *pushLog) waitFor(bound time.Duration, done func(podSet) bool) ([]podSet, bool) {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		pushes, changed := l.snapshot()
		if len(pushes) > 0 && done(pushes[len(pushes)-1]) {
			return pushes, true
		}
		select {
		case <-changed:
		case <-deadline.C:
			pushes, _ = l.snapshot()
			return pushes, false
		}
	}
}

// runReflector runs r until the test ends.
func runReflector(t *testing.T, r *cache.Reflector) {
	t.Cleanup(runReflectorUntil(t, r))
}

// runReflectorUntil runs r until the returned stop is called (safe twice),
// which waits for it to return.
func runReflectorUntil(t *testing.T, r *cache.Reflector) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.RunWithContext(ctx)
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("the reflector did not stop within 30s of its cancel")
		}
	}
}

// answer is the head of one answer to a list or watch of pods.
type answer struct {
	uri         string
	code        int
	contentType string
}

// checkFormat checks that every answer to a list or watch of pods came in the
// form mode asks for: protobuf (a list or Status envelope, a watch stream of
// frames) for the kubelet's client, JSON for the others; and, so that a
// protobuf mode cannot pass on JSON answers, that a protobuf client was
// answered at least once with a protobuf watch stream. A fault's HTML page
// is the only other form allowed.
func checkFormat(t *testing.T, mode clientMode, l *pushLog) {
	t.Helper()
	l.mu.Lock()
	answers := slices.Clone(l.answers)
	l.mu.Unlock()
	want := jsonType
	if mode.protobuf {
		want = protobufType
	}
	streams := 0
	for _, a := range answers {
		media, params, _ := strings.Cut(a.contentType, ";")
		if media == "text/html" {
			continue
		}
		if media != want {
			t.Errorf("mode %s: %s answered %d in %q, want %s", mode.name, a.uri, a.code, a.contentType, want)
		}
		if strings.TrimSpace(params) == "stream=watch" {
			streams++
		}
	}
	if mode.protobuf && streams == 0 {
		t.Errorf("mode %s: no answer was a protobuf watch stream: %v", mode.name, answers)
	}
}

// usedMode checks from the requests sent that the reflector read the server
// as mode says, so that a mode the client ignored cannot pass for tested.
func usedMode(mode clientMode, sent []url.Values) bool {
	if len(sent) == 0 {
		return false
	}
	first := sent[0]
	switch {
	case mode.watchList:
		return first.Get("sendInitialEvents") == "true"
	case mode.pageSize > 0:
		return first.Get("watch") == "" && first.Get("limit") == "1"
	default:
		return first.Get("watch") == "" && first.Get("sendInitialEvents") == ""
	}
}
