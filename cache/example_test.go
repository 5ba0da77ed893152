package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// A kubelet's view of its pods: list and watch the pods bound to node-a, and get
// the whole sorted set after every change.
func ExampleReflector() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			fmt.Fprint(w, `{"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[`+
				`{"metadata":{"namespace":"default","name":"web","resourceVersion":"9"}}]}`)
			return
		}
		fmt.Fprint(w, `{"type":"ADDED","object":{"metadata":{"namespace":"default","name":"db","resourceVersion":"11"}}}`+"\n")
		fmt.Fprint(w, `{"type":"DELETED","object":{"metadata":{"namespace":"default","name":"web","resourceVersion":"12"}}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()

	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		panic(err)
	}
	lw := cache.NewListWatchFromClient(c, "pods", "", rest.OneTermEqualSelector("spec.nodeName", "node-a"), api.Codec)
	ctx, cancel := context.WithCancel(context.Background())
	store := cache.NewUndeltaStore(func(pods []*api.Pod, rv string) {
		fmt.Print("rv ", rv, ":")
		for _, p := range pods {
			fmt.Print(" ", p.Metadata.Name)
		}
		fmt.Println()
		if rv == "12" {
			cancel()
		}
	}, cache.MetaNamespaceKey[*api.Pod])
	cache.NewReflector[*api.Pod](lw, store, cache.ReflectorOptions{}).Run(ctx)
	// Output:
	// rv 10: web
	// rv 11: db web
	// rv 12: db
}
