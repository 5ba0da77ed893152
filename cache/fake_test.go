package cache

import (
	"context"
	"fmt"
	"sync"

	"github.com/podwatch/podwatch/internal/timing"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

func pod(name, rv string) *api.Pod {
	return &api.Pod{Metadata: meta.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

func ev(t watch.EventType, name, rv string) watch.Event[*api.Pod] {
	return watch.Event[*api.Pod]{Type: t, Object: pod(name, rv)}
}

func bookmark(rv string, end bool) watch.Event[*api.Pod] {
	p := &api.Pod{Metadata: meta.ObjectMeta{ResourceVersion: rv}}
	if end {
		p.Metadata.Annotations = map[string]string{InitialEventsEndAnnotation: "true"}
	}
	return watch.Event[*api.Pod]{Type: watch.Bookmark, Object: p}
}

func errEvent(code int32, reason meta.StatusReason) watch.Event[*api.Pod] {
	st := &meta.Status{Status: "Failure", Code: code, Reason: reason}
	return watch.Event[*api.Pod]{Type: watch.Error, Err: rest.NewStatusErrorFromStatus("watch", st)}
}

func gone() error {
	return rest.NewStatusError("GET test", 410, nil, []byte(`{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version"}`))
}

// listAnswer is one scripted answer to a List call.
type listAnswer struct {
	items []*api.Pod
	rv    string
	cont  string
	err   error
}

// watchAnswer is one scripted answer to a Watch call: its events, then either a
// clean close, or (hold) staying open until stopped.
type watchAnswer struct {
	events []watch.Event[*api.Pod]
	hold   bool
	err    error
}

// fakeLW is a scripted ListerWatcher that records every request. Once a script runs
// out, List fails and Watch holds open, so an unexpected call is visible in the
// recorded requests without spinning.
type fakeLW struct {
	mu       sync.Mutex
	lists    []listAnswer
	watches  []watchAnswer
	listReq  []ListOptions
	watchReq []WatchOptions
	open     sync.WaitGroup
	// clock, when set, is the clock a reflector over f runs on, as a
	// ListerWatcher of podwatch's own tells it (see clockOf).
	clock timing.Clock
}

func (f *fakeLW) Clock() timing.Clock { return f.clock }

func (f *fakeLW) List(ctx context.Context, opts ListOptions) (*rest.List[*api.Pod], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listReq = append(f.listReq, opts)
	if len(f.lists) == 0 {
		return nil, fmt.Errorf("fake: unexpected list %+v", opts)
	}
	a := f.lists[0]
	f.lists = f.lists[1:]
	if a.err != nil {
		return nil, a.err
	}
	return &rest.List[*api.Pod]{Metadata: meta.ListMeta{ResourceVersion: a.rv, Continue: a.cont}, Items: a.items}, nil
}

func (f *fakeLW) Watch(ctx context.Context, opts WatchOptions) (watch.Interface[*api.Pod], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watchReq = append(f.watchReq, opts)
	a := watchAnswer{hold: true}
	if len(f.watches) > 0 {
		a = f.watches[0]
		f.watches = f.watches[1:]
	}
	if a.err != nil {
		return nil, a.err
	}
	w := &fakeWatcher{ch: make(chan watch.Event[*api.Pod]), stop: make(chan struct{})}
	f.open.Add(1)
	go func() {
		defer f.open.Done()
		defer close(w.ch)
		for _, e := range a.events {
			select {
			case w.ch <- e:
			case <-w.stop:
				return
			}
		}
		if a.hold {
			<-w.stop
		}
	}()
	return w, nil
}

func (f *fakeLW) requests() ([]ListOptions, []WatchOptions) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ListOptions(nil), f.listReq...), append([]WatchOptions(nil), f.watchReq...)
}

type fakeWatcher struct {
	ch   chan watch.Event[*api.Pod]
	stop chan struct{}
	once sync.Once
}

func (w *fakeWatcher) ResultChan() <-chan watch.Event[*api.Pod] { return w.ch }
func (w *fakeWatcher) Stop()                                    { w.once.Do(func() { close(w.stop) }) }

// push is one recorded UndeltaStore push.
type push struct {
	Names []string
	RV    string
}

type pushLog struct {
	mu     sync.Mutex
	pushes []push
}

func (l *pushLog) fn(items []*api.Pod, rv string) {
	names := []string{}
	for _, p := range items {
		names = append(names, p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
	}
	l.mu.Lock()
	l.pushes = append(l.pushes, push{names, rv})
	l.mu.Unlock()
}

func (l *pushLog) get() []push {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]push(nil), l.pushes...)
}
