// Command protogen writes rest/protowire/schema_gen.go: the protobuf
// schema of the objects podwatch reads (core/v1 Pod and PodList, meta/v1
// Status and WatchEvent, and every message they reach), derived from the Go
// types of k8s.io/api and k8s.io/apimachinery by their struct tags. It lives
// in a module of its own so that podwatch itself imports no Kubernetes code.
//
//	cd internal/protogen && go run . -out ../../rest/protowire/schema_gen.go
//
// The module's test fails when the checked-in file differs from what the
// generator writes.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "../../rest/protowire/schema_gen.go", "the file to write")
	flag.Parse()
	src, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}
