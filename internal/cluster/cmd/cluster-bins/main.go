// Command cluster-bins builds the etcd and kube-apiserver binaries that
// podwatch's real-cluster tests run, unless they are already built from the
// current nested go.mod and go.sum. `make cluster-bins` runs it.
package main

import "github.com/podwatch/podwatch/internal/tool"

func main() { tool.Run(Main) }
