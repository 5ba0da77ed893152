// Command cluster-bins builds the binaries podwatch's tests run (etcd and
// kube-apiserver for the real cluster, kubectl 1.37 and 1.32 as outside
// clients), unless they are already built from the current nested go.mod and
// go.sum. `make cluster-bins` runs it; -only picks some of them.
package main

import "github.com/podwatch/podwatch/internal/tool"

func main() { tool.Run(Main) }
