package apiwire

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePods(t *testing.T) {
	q, _ := url.ParseQuery(`fieldSelector=spec.nodeName%3D%3Dnode-a,metadata.name!%3Dx\,y&limit=-3&timeoutSeconds=9&watch=1&allowWatchBookmarks=true&resourceVersion=7`)
	got, st := ParsePods("/api/v1/watch/namespaces/shop/pods", q)
	if st != nil {
		t.Fatalf("status %+v", st)
	}
	want := PodsRequest{Namespace: "shop", Watch: true, ResourceVersion: "7", AllowBookmarks: true, Timeout: 9 * time.Second,
		FieldSelector: []Term{{"spec.nodeName", "=", "node-a"}, {"metadata.name", "!=", "x,y"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for path, ok := range map[string]bool{"/api/v1/pods": true, "/api/v1/namespaces/a/pods": true, "/api/v1/watch/pods": true,
		"/api/v1/nodes": false, "/api/v1/namespaces//pods": false, "/apis/v1/pods": false, "/api/v1/namespaces/a/pods/b": false} {
		if _, _, got := RoutePods(path); got != ok {
			t.Errorf("RoutePods(%s): %t, want %t", path, got, ok)
		}
	}
}

func TestWantsAggregatedDiscovery(t *testing.T) {
	for accept, want := range map[string]bool{
		"": false, "application/json": false,
		"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json":      true,
		"application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io":                       true,
		"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json": false,
		"application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList":      false,
	} {
		if got := wantsAggregated(accept); got != want {
			t.Errorf("wantsAggregated(%q): %t, want %t", accept, got, want)
		}
	}
}
