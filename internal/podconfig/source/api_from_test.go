package source

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// recordingInstrument is an Instrument that records what it is told.
type recordingInstrument struct {
	mu      sync.Mutex
	wrapped int
	steps   []cache.StepKind
	pushed  []string              // the resourceVersion of each push
	onPush  func(n int)           // told of the n-th push (from 1), before it is sent
	applied map[string]int        // calls through the wrapped store, by method
	store   cache.Store[*api.Pod] // the store WrapStore was given
}

func (in *recordingInstrument) Observe(st cache.Step) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.steps = append(in.steps, st.Kind)
}

func (in *recordingInstrument) WrapStore(s cache.Store[*api.Pod]) cache.Store[*api.Pod] {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.wrapped++
	in.applied = map[string]int{}
	return &countingStore{Store: s, in: in}
}

func (in *recordingInstrument) Pushed(_ []*api.Pod, rv string) {
	in.mu.Lock()
	in.pushed = append(in.pushed, rv)
	n, on := len(in.pushed), in.onPush
	in.mu.Unlock()
	if on != nil {
		on(n)
	}
}

func (in *recordingInstrument) count(k cache.StepKind) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, s := range in.steps {
		if s == k {
			n++
		}
	}
	return n
}

// countingStore counts the calls the reflector makes through the wrapper.
type countingStore struct {
	cache.Store[*api.Pod]
	in *recordingInstrument
}

func (s *countingStore) note(m string) {
	s.in.mu.Lock()
	s.in.applied[m]++
	s.in.mu.Unlock()
}

func (s *countingStore) Add(p *api.Pod) error { s.note("Add"); return s.Store.Add(p) }
func (s *countingStore) Replace(items []*api.Pod, rv string) error {
	s.note("Replace")
	return s.Store.Replace(items, rv)
}

func newClient(t *testing.T, srv *fakeAPIServer) *rest.Client {
	t.Helper()
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// goRun runs a in the background on ctx; the returned channel gives Run's
// result once it returns.
func goRun(ctx context.Context, a *API, out chan<- podconfig.PodUpdate) <-chan error {
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, out) }()
	return done
}

// TestAPIFromListerWatcher runs the source over a ListWatch the caller
// narrowed itself (another node's pods), with an Instrument: every piece of
// it is used, and each push is told before it is sent.
func TestAPIFromListerWatcher(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	lw := cache.NewListWatchFromClient(newClient(t, srv), "pods", "", "spec.nodeName=node-b", api.Codec)
	in := &recordingInstrument{}
	var mine []cache.StepKind
	a := NewAPIFrom(lw, APIOptions{Instrument: in, Reflector: cache.ReflectorOptions{
		Observe: func(st cache.Step) { mine = append(mine, st.Kind) },
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan podconfig.PodUpdate)
	done := goRun(ctx, a, out)

	waitForSET(t, out, "default/b1")
	srv.add(t, "default", "b2", "node-b", nil)
	waitForSET(t, out, "default/b1", "default/b2")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v, want nil after its ctx ended", err)
		}
	case <-time.After(wait):
		t.Fatalf("Run still running %v after its ctx ended", wait)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.wrapped != 1 || in.applied["Replace"] != 1 || in.applied["Add"] != 1 {
		t.Errorf("store wrapped %d times, Replace %d, Add %d through it; want 1, 1, 1", in.wrapped, in.applied["Replace"], in.applied["Add"])
	}
	if len(in.pushed) != 2 {
		t.Errorf("Pushed told %d pushes (%v), want 2", len(in.pushed), in.pushed)
	}
	if len(in.steps) == 0 || len(in.steps) != len(mine) {
		t.Errorf("the Instrument saw %d steps and the options' Observe %d; want the same, and some", len(in.steps), len(mine))
	}
}

// TestAPIStopIsGraceful stops the source while the update of an event is
// waiting for a reader: that update still arrives, and none after it,
// although the server has more changes to send.
func TestAPIStopIsGraceful(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	inHand := make(chan struct{})
	in := &recordingInstrument{onPush: func(n int) {
		if n == 2 {
			close(inHand)
		}
	}}
	a := NewAPI(newClient(t, srv), "node-a", APIOptions{Instrument: in})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan podconfig.PodUpdate)
	done := goRun(ctx, a, out)

	waitForSET(t, out, "default/a1", "default/a2", "kube-system/etcd-node-a")
	for _, name := range []string{"a3", "a4", "a5"} {
		srv.add(t, "default", name, "node-a", nil)
	}
	select {
	case <-inHand:
	case <-time.After(wait):
		t.Fatalf("no push of the first event within %v", wait)
	}
	a.Stop()
	a.Stop() // safe twice
	waitForSET(t, out, "default/a1", "default/a2", "default/a3", "kube-system/etcd-node-a")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v, want nil after Stop", err)
		}
	case u := <-out:
		t.Fatalf("an update after the graceful stop: %v", names(u.Pods))
	case <-time.After(wait):
		t.Fatalf("Run still running %v after Stop", wait)
	}
	if n := in.count(cache.StepEvent); n != 1 {
		t.Fatalf("%d events applied, want 1: the one in hand when Stop came", n)
	}
}

// TestAPIStopFromObserve stops the source from an Observe hook, as the
// command does when --max-events is reached: no event after the observed
// one is applied, though the server has sent more.
func TestAPIStopFromObserve(t *testing.T) {
	srv := newFakeAPIServer(t)
	seedNodes(t, srv)
	var a *API
	a = NewAPI(newClient(t, srv), "node-a", APIOptions{Reflector: cache.ReflectorOptions{
		Observe: func(st cache.Step) {
			if st.Kind == cache.StepEvent {
				a.Stop()
			}
		},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan podconfig.PodUpdate, 10)
	done := goRun(ctx, a, out)
	waitForSET(t, out, "default/a1", "default/a2", "kube-system/etcd-node-a")
	for _, name := range []string{"a3", "a4", "a5"} {
		srv.add(t, "default", name, "node-a", nil)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v, want nil after Stop", err)
		}
	case <-time.After(wait):
		t.Fatalf("Run still running %v after Stop", wait)
	}
	if len(out) != 1 {
		t.Fatalf("%d updates after the sync, want 1: the observed event's", len(out))
	}
	if got := names((<-out).Pods); len(got) != 4 {
		t.Fatalf("the update after the sync holds %v, want the three pods and a3", got)
	}
}

// TestAPIStopBeforeRun makes Run return at once.
func TestAPIStopBeforeRun(t *testing.T) {
	srv := newFakeAPIServer(t)
	a := NewAPI(newClient(t, srv), "node-a", APIOptions{})
	a.Stop()
	select {
	case err := <-goRun(context.Background(), a, make(chan podconfig.PodUpdate)):
		if err != nil {
			t.Fatalf("Run: %v, want nil", err)
		}
	case <-time.After(wait):
		t.Fatalf("Run still running %v after an earlier Stop", wait)
	}
}

// TestAPIGivesUp returns the failure GiveUp chose before the first sync.
func TestAPIGivesUp(t *testing.T) {
	srv := newFakeAPIServer(t) // refuses any selector but spec.nodeName=NODE with a 400
	lw := cache.NewListWatchFromClient(newClient(t, srv), "pods", "", "metadata.name=x", api.Codec)
	a := NewAPIFrom(lw, APIOptions{Reflector: cache.ReflectorOptions{GiveUp: func(err error) bool { se, ok := rest.AsStatusError(err); return ok && se.Status.Code == 400 }}})
	select {
	case err := <-goRun(context.Background(), a, make(chan podconfig.PodUpdate)):
		var pe *cache.PhaseError
		if !errors.As(err, &pe) || pe.Phase != cache.PhaseList || pe.Name != "pods" {
			t.Fatalf("Run: %v, want a list failure of pods", err)
		}
		if se, ok := rest.AsStatusError(err); !ok || se.Status.Code != 400 {
			t.Fatalf("Run: %v, want the server's 400", err)
		}
	case <-time.After(wait):
		t.Fatalf("Run still running %v after a failure it should give up on", wait)
	}
}
