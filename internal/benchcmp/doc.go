// Command clientgo-bench runs client-go on the same benchmarks as podwatch
// bench, so make bench can set them side by side: sync (NewListWatchFromClient
// + NewReflector + NewUndeltaStore against a server, until a push reflects a
// resourceVersion) and decode (client-go's own watch decoder chain over a
// stream file, JSON, and the same events re-encoded as protobuf). It prints
// the same JSON lines as podwatch bench.
//
// It is a module of its own so that the podwatch module never depends on
// Kubernetes code.
package main
