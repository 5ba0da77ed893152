// Command cluster-bins builds the etcd and kube-apiserver binaries that
// podwatch's real-cluster tests run, unless they are already built from the
// current nested go.mod and go.sum. `make cluster-bins` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
)

func main() {
	binDir := flag.String("bin-dir", "", "folder for the binaries (default $"+cluster.BinDirEnv+" or <repo>/.cache/bin)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir := *binDir
	if dir == "" {
		d, err := cluster.DefaultBinDir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster-bins:", err)
			os.Exit(1)
		}
		dir = d
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "cluster-bins: ensuring etcd and kube-apiserver in %s (a cold build takes minutes)\n", dir)
	if err := cluster.EnsureBinaries(ctx, dir); err != nil {
		fmt.Fprintln(os.Stderr, "cluster-bins:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "cluster-bins: ready in %s\n", time.Since(start).Round(100*time.Millisecond))
}
