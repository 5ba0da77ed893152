// Package tenlines is the README's "library in ten lines", compiled: the code
// between the README markers is the README's snippet, which a test keeps
// identical.
package tenlines

// README begin
import (
	"context"
	"fmt"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// README end

// WatchNode prints the number of pods bound to node-a after every change,
// until ctx is cancelled.
func WatchNode(ctx context.Context, token string) {
	// README begin
	c, _ := rest.NewClient(rest.Config{Host: "https://127.0.0.1:6443", BearerToken: token,
		TLS: rest.TLSConfig{CAFile: "ca.crt"}})
	lw := cache.NewListWatchFromClient(c, "pods", "", rest.OneTermEqualSelector("spec.nodeName", "node-a"), api.Codec)
	store := cache.NewUndeltaStore(func(pods []*api.Pod, rv string) {
		fmt.Println(len(pods), "pods at resourceVersion", rv)
	}, cache.MetaNamespaceKey[*api.Pod])
	cache.NewReflector[*api.Pod](lw, store, cache.ReflectorOptions{WatchList: true}).Run(ctx)
	// README end
}
