package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// compactingLW compacts etcd (after one more write, so that the compaction
// passes the first page's snapshot) once the first page of a paginated list
// has been served: the continue token of the next page then names a
// revision etcd no longer has.
type compactingLW struct {
	cache.ListerWatcher[*api.Pod]
	t       *testing.T
	c       *cluster.Cluster
	once    sync.Once
	mu      sync.Mutex
	listReq []cache.ListOptions
}

func (l *compactingLW) List(ctx context.Context, opts cache.ListOptions) (*rest.List[*api.Pod], error) {
	l.mu.Lock()
	l.listReq = append(l.listReq, opts)
	l.mu.Unlock()
	list, err := l.ListerWatcher.List(ctx, opts)
	if err == nil && list.Metadata.Continue != "" {
		l.once.Do(func() {
			if _, err := l.c.CreatePod(ctx, "default", "elsewhere", otherNode, nil); err != nil {
				l.t.Errorf("CreatePod: %v", err)
			}
			if _, err := l.c.CompactEtcd(ctx); err != nil {
				l.t.Errorf("CompactEtcd: %v", err)
			}
		})
	}
	return list, err
}

// TestExpiredContinueAgainstAPIServer pages a list on a real apiserver
// (served from etcd: no watch cache) and compacts etcd between its first two
// pages: the second page answers 410, and the reflector lists once more in
// one page, without limit, which syncs every pod.
func TestExpiredContinueAgainstAPIServer(t *testing.T) {
	off := false
	c := cluster.StartForTest(t, cluster.Options{WatchCache: &off})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, "default"); err != nil {
		t.Fatalf("EnsureNamespace: %v", err)
	}
	var want []string
	for i := range 3 {
		name := fmt.Sprintf("paged-%d", i)
		if _, err := c.CreatePod(ctx, "default", name, node, nil); err != nil {
			t.Fatalf("CreatePod: %v", err)
		}
		want = append(want, "default/"+name)
	}
	lw := &compactingLW{ListerWatcher: nodeListWatch(newClient(t, c, c.AdminToken, nil)), t: t, c: c}
	synced := make(chan []string, 1)
	store := cache.NewUndeltaStore(func(pods []*api.Pod, _ string) {
		var keys []string
		for _, p := range pods {
			keys = append(keys, p.Metadata.Namespace+"/"+p.Metadata.Name)
		}
		select {
		case synced <- keys:
		default:
		}
	}, cache.MetaNamespaceKey[*api.Pod])
	var mu sync.Mutex
	var expired []error
	r := cache.NewReflector[*api.Pod](lw, store, cache.ReflectorOptions{PageSize: 1, Name: "pods", Observe: func(st cache.Step) {
		if st.Kind == cache.StepRelist && st.Cause == cache.RelistPageExpired {
			mu.Lock()
			expired = append(expired, st.Err)
			mu.Unlock()
		}
	}})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	var got []string
	select {
	case got = <-synced:
	case <-time.After(wait):
		t.Fatalf("no sync within %v", wait)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("synced pods (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(expired) != 1 || !rest.IsGone(expired[0]) {
		t.Fatalf("continue-expired steps %v, want one with the server's 410", expired)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if n := len(lw.listReq); n != 3 || lw.listReq[1].Continue == "" || lw.listReq[2] != (cache.ListOptions{}) {
		t.Fatalf("list requests %+v, want the first page, the expired second, then one without limit", lw.listReq)
	}
}
