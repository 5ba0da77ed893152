package compat

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cluster"
)

// TestKubectlWatchJudgeOnRealApiserver proves the kubectl judge on the server
// it stands for: against a real kube-apiserver, the same kubectl watch prints
// every change to node-a's pods made while it runs, and none of node-b's, in
// the form the replay test reads. Were the judge misreading kubectl, the
// replay test's failures and passes would mean nothing.
func TestKubectlWatchJudgeOnRealApiserver(t *testing.T) {
	c := cluster.StartForTest(t, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.EnsureNamespace(ctx, "shop"); err != nil {
		t.Fatalf("namespace: %v", err)
	}
	first, err := c.CreatePod(ctx, "shop", "web-1", kubeletNode, nil)
	if err != nil {
		t.Fatalf("create web-1: %v", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, c.CAData, 0o600); err != nil {
		t.Fatalf("write CA: %v", err)
	}
	for _, name := range []string{cluster.Kubectl, cluster.KubectlOld} {
		t.Run(name, func(t *testing.T) {
			kubectl := kubectlPath(t, name)
			args := append(kubectlWatchArgs(c.URL), "--token", c.NodeToken, "--certificate-authority", ca)
			want := []string{"shop/web-1@" + first}
			// Once kubectl has printed the first state, change node-a's pods,
			// add one on node-b, and last add a sentinel on node-a: events
			// come in resourceVersion order, so when kubectl prints the
			// sentinel it has printed everything it was going to before it.
			sentinel := "shop/last-" + name
			sctx, scancel := context.WithCancel(ctx)
			defer scancel()
			var made []string
			changed := make(chan struct{})
			listed := make(chan struct{})
			var once sync.Once
			go func() {
				defer close(changed)
				select {
				case <-listed:
				case <-sctx.Done():
					return // kubectl never printed the first state; the run says so
				}
				steps := []func() (string, string, error){
					func() (string, string, error) {
						rv, err := c.CreatePod(sctx, "shop", "web-2-"+name, kubeletNode, nil)
						return "shop/web-2-" + name, rv, err
					},
					func() (string, string, error) {
						rv, err := c.SetPodImage(sctx, "shop", "web-2-"+name, "registry.invalid/pause:2")
						return "shop/web-2-" + name, rv, err
					},
					func() (string, string, error) {
						_, err := c.CreatePod(sctx, "shop", "other-"+name, "node-b", nil)
						return "", "", err
					},
					func() (string, string, error) {
						rv, err := c.CreatePod(sctx, "shop", "last-"+name, kubeletNode, nil)
						return sentinel, rv, err
					},
				}
				for _, step := range steps {
					key, rv, err := step()
					if err != nil {
						t.Errorf("change pods: %v", err)
						return
					}
					if key != "" {
						made = append(made, key+"@"+rv)
					}
				}
			}()
			run := runKubectlUntil(t, kubectl, args, convergeBound, func(seen []string) bool {
				if containsAll(seen, want) {
					once.Do(func() { close(listed) })
				}
				return slices.ContainsFunc(seen, func(v string) bool { k, _ := splitVersion(t, v); return k == sentinel })
			})
			scancel() // the changes end here if kubectl never printed the first state
			<-changed
			if len(made) != 3 {
				t.Fatalf("only %v of the changes were made while kubectl watched; it printed %v (exited %t: %v)\nkubectl said:\n%s",
					made, run.printed, run.exited, run.err, run.stderr)
			}
			if missing := missingFrom(run.printed, append(want, made...)); len(missing) > 0 {
				t.Errorf("kubectl did not print %v; it printed %v (exited %t: %v)\nkubectl said:\n%s", missing, run.printed, run.exited, run.err, run.stderr)
			}
			if i := slices.IndexFunc(run.printed, func(v string) bool { k, _ := splitVersion(t, v); return k == "shop/other-"+name }); i >= 0 {
				t.Errorf("kubectl printed %s, a pod on node-b", run.printed[i])
			}
		})
	}
}
