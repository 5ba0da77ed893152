// Command protogen writes rest/protowire/schema_gen.go from the Kubernetes
// Go types (package protogen). It keeps the shape of podwatch's tool mains
// (internal/tool) without importing them: its module must not depend on
// podwatch's.
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
