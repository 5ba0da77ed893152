// Command clientgo-bench runs client-go on the same benchmarks as podwatch
// bench, so make bench can set them side by side: sync (NewListWatchFromClient
// + NewReflector + NewUndeltaStore against a server, until a push reflects a
// resourceVersion) and decode (client-go's own watch decoder chain over a
// stream file, JSON, protobuf or CBOR). It prints the same JSON lines as
// podwatch bench. protobuf-stream and cbor-stream write the protobuf or CBOR
// watch stream of a JSON one, as the apiserver would send it to such a
// client, for both to decode.
//
// It lives in a module of its own (internal/benchcmp) so that the podwatch
// module never depends on Kubernetes code; for the same reason it keeps the
// shape of podwatch's tool mains (internal/tool) without importing it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
