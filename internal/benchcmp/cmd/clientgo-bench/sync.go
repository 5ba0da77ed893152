package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

type syncResult struct {
	Pushes       int64   `json:"pushes"`
	SyncS        float64 `json:"sync_s"`
	TotalS       float64 `json:"total_s"`
	Mallocs      uint64  `json:"mallocs"`
	TotalAllocMB float64 `json:"total_alloc_mb"`
}

// watchStore is client-go's UndeltaStore, told after each change which
// resourceVersion the change carried: the push itself only sees the items,
// and scanning them for the newest version would cost client-go O(N) per event
// that podwatch does not pay.
type watchStore struct {
	*cache.UndeltaStore
	seen func(rv string)
}

func (s *watchStore) Add(obj any) error    { return s.after(obj, s.UndeltaStore.Add(obj)) }
func (s *watchStore) Update(obj any) error { return s.after(obj, s.UndeltaStore.Update(obj)) }
func (s *watchStore) Delete(obj any) error { return s.after(obj, s.UndeltaStore.Delete(obj)) }
func (s *watchStore) Replace(list []any, rv string) error {
	err := s.UndeltaStore.Replace(list, rv)
	s.seen(rv)
	return err
}

func (s *watchStore) after(obj any, err error) error {
	if p, ok := obj.(*corev1.Pod); ok {
		s.seen(p.ResourceVersion)
	}
	return err
}

// contentConfigs are the client's content settings per --content-type. For
// protobuf they are the kubelet's: protobuf asked for, JSON accepted as well.
var contentConfigs = map[string]rest.ContentConfig{
	"json": {ContentType: "application/json"},
	"protobuf": {
		ContentType:        "application/vnd.kubernetes.protobuf",
		AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json",
	},
}

func runSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sync", stderr)
	server := fs.String("server", "", "apiserver URL")
	node := fs.String("node", "node-1", "node")
	untilRV := fs.String("until-rv", "", "stop once a push reflects this resourceVersion")
	watchList := fs.Bool("watch-list", true, "streaming watch list (false: paginated list)")
	chunk := fs.Int64("chunk-size", 500, "list page size, as podwatch bench sync's")
	format := fs.String("content-type", "json", "json, or protobuf as the kubelet asks for its pods")
	if err := parse(fs, args); err != nil {
		return err
	}
	content, ok := contentConfigs[*format]
	if !ok {
		fmt.Fprintf(fs.Output(), "%s: --content-type %q: want json or protobuf\n", fs.Name(), *format)
		return errUsage
	}
	until, err := strconv.ParseInt(*untilRV, 10, 64)
	if err != nil || *server == "" {
		return fmt.Errorf("sync: want --server and a numeric --until-rv")
	}
	// client-go reads its feature gates from the environment on first use.
	os.Setenv("KUBE_FEATURE_WatchListClient", strconv.FormatBool(*watchList))

	cfg := &rest.Config{Host: *server, QPS: -1, ContentConfig: content}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pushes, synced atomic.Int64
	reached := make(chan struct{})
	var once atomic.Bool
	store := &watchStore{
		UndeltaStore: cache.NewUndeltaStore(func([]any) {
			if pushes.Add(1) == 1 {
				synced.Store(int64(time.Since(start)))
			}
		}, cache.MetaNamespaceKeyFunc),
		seen: func(rv string) {
			if n, err := strconv.ParseInt(rv, 10, 64); err == nil && n >= until && once.CompareAndSwap(false, true) {
				close(reached)
			}
		},
	}
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, fields.OneTermEqualSelector("spec.nodeName", *node))
	r := cache.NewReflector(lw, &corev1.Pod{}, store, 0)
	r.WatchListPageSize = *chunk
	done := make(chan struct{})
	go func() { defer close(done); r.RunWithContext(ctx) }()
	select {
	case <-reached:
	case <-ctx.Done():
		return fmt.Errorf("sync: stopped before resourceVersion %d", until)
	}
	total := time.Since(start)
	cancel()
	<-done
	mallocs, mb := memFigures()
	return printJSON(stdout, syncResult{Pushes: pushes.Load(), SyncS: time.Duration(synced.Load()).Seconds(), TotalS: total.Seconds(), Mallocs: mallocs, TotalAllocMB: mb})
}
