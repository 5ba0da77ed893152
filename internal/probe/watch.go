package probe

import (
	"context"
	"sync"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

// watcher runs podwatch's reflector over the node's pods and tells the
// probe when the canary's annotation shows the value it waits for.
type watcher struct {
	r      *cache.Reflector[*api.Pod]
	store  *canaryStore
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's, set before done closes
}

// startWatch starts the reflector on a goroutine the watcher owns; stop
// ends it and waits for it.
func startWatch(ctx context.Context, o Options) *watcher {
	lw := cache.NewListWatchFromClient(o.Client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", o.Node), api.Codec)
	s := &canaryStore{ThreadSafeStore: cache.NewStore(cache.MetaNamespaceKey[*api.Pod]),
		key: o.Namespace + "/" + o.Canary, now: o.Now, synced: make(chan struct{})}
	w := &watcher{store: s, done: make(chan struct{})}
	w.r = cache.NewReflector[*api.Pod](lw, s, cache.ReflectorOptions{Name: "pods",
		// Before the first sync, a refusal or a configuration no retry
		// cures ends the probe; later failures are retried as a kubelet's.
		GiveUp: func(err error) bool {
			return rest.IsForbidden(err) || rest.IsUnauthorized(err) || rest.NeedsConfigChange(err)
		}})
	ctx, w.cancel = context.WithCancel(ctx)
	go func() {
		defer close(w.done)
		w.err = w.r.Run(ctx)
	}()
	return w
}

// waitSynced waits for the store's first state, or the reflector giving up
// (a 403 becomes a *PermissionError), or ctx's end (nil: nothing to do).
func (w *watcher) waitSynced(ctx context.Context) error {
	select {
	case <-w.store.synced:
		return nil
	case <-ctx.Done():
		return nil
	case <-w.done:
		if w.err != nil && ctx.Err() == nil {
			if rest.IsForbidden(w.err) {
				return &PermissionError{Verb: "list and watch", Resource: "pods", Err: w.err}
			}
			return w.err
		}
		return nil
	}
}

func (w *watcher) stop() {
	w.cancel()
	<-w.done
}

// resourceVersion is the watch's: the newer of the last state the store
// took (the reflector notes a list's version only after the store has it)
// and the reflector's (which a bookmark moves too).
func (w *watcher) resourceVersion() string {
	stored, synced := w.store.resourceVersion(), w.r.LastSyncResourceVersion()
	if c, err := meta.CompareResourceVersions(stored, synced); err == nil && c < 0 || stored == "" {
		return synced
	}
	return stored
}

// expect makes value the one awaited, and returns the channel that gets
// the moment it arrives; "" awaits nothing.
func (w *watcher) expect(value string) <-chan time.Time { return w.store.expect(value) }

// canaryStore is the reflector's store, watching the canary go by.
type canaryStore struct {
	*cache.ThreadSafeStore[*api.Pod]
	key string
	now func() time.Time

	mu      sync.Mutex
	want    string
	arrived chan time.Time
	rv      string // of the last change or state taken

	syncOnce sync.Once
	synced   chan struct{}
}

func (s *canaryStore) expect(value string) <-chan time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want = value
	s.arrived = make(chan time.Time, 1)
	return s.arrived
}

func (s *canaryStore) resourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rv
}

func (s *canaryStore) took(rv string) {
	s.mu.Lock()
	s.rv = rv
	s.mu.Unlock()
}

// saw notes p: the canary showing the awaited value completes the wait.
// The send never blocks: each awaited value is sent once, on a channel
// with room for it.
func (s *canaryStore) saw(p *api.Pod) {
	if cache.MetaNamespaceKey(p) != s.key {
		return
	}
	at := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.want != "" && p.Metadata.Annotations[Annotation] == s.want {
		s.want = ""
		s.arrived <- at
	}
}

func (s *canaryStore) Add(p *api.Pod) error {
	s.saw(p)
	defer s.took(p.Metadata.ResourceVersion)
	return s.ThreadSafeStore.Add(p)
}

func (s *canaryStore) Update(p *api.Pod) error {
	s.saw(p)
	defer s.took(p.Metadata.ResourceVersion)
	return s.ThreadSafeStore.Update(p)
}

func (s *canaryStore) Delete(p *api.Pod) error {
	defer s.took(p.Metadata.ResourceVersion)
	return s.ThreadSafeStore.Delete(p)
}

// Replace takes a list's state: a relist may be where the annotation
// shows, when the watch broke before its event.
func (s *canaryStore) Replace(items []*api.Pod, rv string) error {
	for _, p := range items {
		s.saw(p)
	}
	err := s.ThreadSafeStore.Replace(items, rv)
	s.took(rv)
	s.syncOnce.Do(func() { close(s.synced) })
	return err
}
