package cluster

import (
	"context"
	"testing"
	"time"
)

// StartForTest starts a cluster for t (see Start) and closes it when the
// test and its subtests end, logging both processes' log tails first if
// the test failed. Any failure to build or start ends the test with
// t.Fatalf and the reason: a real-cluster test never skips, except under
// go test -short (make unit, the quick loop), where it skips before building
// or starting anything; make test runs without -short. The start is
// bounded by 15 minutes, enough for a cold build on a busy machine; run
// `make cluster-bins` first so go test's own timeout is not spent on it.
func StartForTest(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver and etcd: -short (make unit) leaves it to make test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs:\n%s", c.Logs())
		}
		if err := c.Close(); err != nil {
			t.Errorf("close cluster: %v", err)
		}
	})
	return c
}
