package source_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/podconfig/source"
)

func ExampleHTTP() {
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.29\n"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, manifest)
	}))
	defer ts.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cfg := podconfig.New(podconfig.Incremental, podconfig.Options{})
	src := source.NewHTTP(ts.URL, "Node-1", source.HTTPOptions{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.Run(ctx, cfg.Channel(ctx, podconfig.SourceHTTP))
	}()

	u := <-cfg.Updates()
	p := u.Pods[0]
	fmt.Println(u.Op, u.Source, podconfig.FullName(p), p.Spec.NodeName, p.Status.Phase, podconfig.IsStaticPod(p))

	cancel()
	<-done
	cfg.Wait()
	// Output:
	// ADD http default/web-node-1 Node-1 Pending true
}
