package kubeletcompat

import (
	"context"
	"testing"
	"time"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/internal/podconfig/source"
	"github.com/podwatch/podwatch/rest"
)

// podwatchSide is podwatch's pod config fed by its api source, as podwatch
// watch runs them: a watch list first, as client-go's reflector does by
// default since 1.35 (the test checks the kubelet did the same).
type podwatchSide struct {
	pc   *podconfig.PodConfig
	wire *wire
}

// startPodwatch starts podwatch's pod config for node, fed by its api
// source over a client that speaks contentType. Every update is added to
// out. Everything it starts stops when ctx ends, and the test waits for it.
func startPodwatch(t *testing.T, ctx context.Context, c *cluster.Cluster, node, contentType string, out *stream, bar barrier) *podwatchSide {
	t.Helper()
	w := newWire(ctx)
	client, err := rest.NewClient(rest.Config{
		Host:          c.URL,
		BearerToken:   c.NodeToken,
		TLS:           rest.TLSConfig{CAData: c.CAData},
		ContentType:   contentType,
		WrapTransport: w.wrap,
	})
	if err != nil {
		t.Fatalf("podwatch client: %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	pc := podconfig.New(podconfig.Incremental, podconfig.Options{})
	src := source.NewAPI(client, node, source.APIOptions{Reflector: cache.ReflectorOptions{WatchList: true}})
	ch := pc.Channel(ctx, podconfig.SourceAPI)
	srcDone := make(chan struct{})
	go func() {
		defer close(srcDone)
		if err := src.Run(ctx, ch); err != nil {
			t.Errorf("podwatch api source: %v", err)
		}
	}()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		readPodwatch(ctx, pc.Updates(), out, bar)
	}()
	t.Cleanup(func() {
		cancel()
		waitClosed(t, "podwatch's api source", srcDone)
		waitClosed(t, "podwatch's update reader", readDone)
		waitClosed(t, "podwatch's pod config", waitChan(pc.Wait))
	})
	return &podwatchSide{pc: pc, wire: w}
}

func (p *podwatchSide) seenAPI() bool { return p.pc.SeenAllSources([]string{podconfig.SourceAPI}) }

func readPodwatch(ctx context.Context, updates <-chan podconfig.PodUpdate, out *stream, bar barrier) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-updates:
			rec := update{Op: u.Op.String(), Source: u.Source, Pods: []string{}}
			step := noStep
			for _, p := range u.Pods {
				key := podconfig.FullName(p)
				rec.Pods = append(rec.Pods, key)
				m := &p.Metadata
				// The apiserver refuses a pod without containers.
				rec.Views = append(rec.Views, view(key, m.Labels, p.Spec.Containers[0].Image, p.Status.Phase, m.DeletionTimestamp, m.DeletionGracePeriodSeconds))
				if s, ok := bar.step(key, p.Metadata.Labels); ok {
					step = s
				}
			}
			out.add(rec, step)
		}
	}
}

// waitClosed waits, within wait, for what to return once its ctx ended.
func waitClosed(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(wait):
		t.Errorf("%s did not return within %s of its context ending", what, wait)
	}
}

// waitChan runs f on a goroutine and closes the channel it returns when
// f returns.
func waitChan(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}
