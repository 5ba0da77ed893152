package kubeletcompat

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podwatch/podwatch/internal/cluster"
)

// What the kubelet's pod config (v1.37.2) does that one might not expect,
// seen by this test or read in its code:
//
//   - It publishes its own stored copy of a pod, and on a change refreshes
//     only the spec, labels, annotations, deletion fields, generation and
//     status of that copy: an UPDATE or RECONCILE carries the pod with the
//     rest of the metadata it was first seen with, its resourceVersion
//     included (a relabel written at resourceVersion 227 came out at 217, the
//     pod's first). podwatch publishes the pod as the server last sent it.
//     So the comparison looks only at what both refresh (see view).
//   - It writes its source and first-seen annotations into the pods it is
//     handed, which are the objects in client-go's store: the reflector's
//     cache holds pods the kubelet changed.
//   - Its apiserver source cannot be stopped: the reflector runs until the
//     process ends (see wire for how the test quiets it).
//   - Its reflector (client-go's) reads the whole state again after any
//     failed watch, where podwatch's resumes the watch unless the server
//     answers 410; see testRelist.
//   - In v1.37 it has no SET and no notification modes: sources send
//     whole states, and the pod config publishes REMOVE, ADD, UPDATE,
//     DELETE, RECONCILE, in that order, each only when it has pods, and an
//     empty ADD for a source's first state that adds nothing. podwatch's
//     Incremental mode is that; its snapshot modes are its own.

// kubeletSide is the real kubelet's pod config with its apiserver source,
// built as pkg/kubelet's NewMainKubelet builds them.
type kubeletSide struct {
	cfg  *config.PodConfig
	wire *wire
}

// The kubelet's flag --kube-api-content-type, whose default is protobuf.
const (
	protobufType = "application/vnd.kubernetes.protobuf"
	jsonType     = "application/json"
)

// startKubelet starts the kubelet's pod config for node, fed by its
// apiserver source over a clientset that speaks contentType as the kubelet
// configures it: for protobuf it also accepts JSON after it. Every update
// is added to out. The source's traffic is cut when done ends (see wire);
// the goroutine reading updates returns then.
func startKubelet(t *testing.T, done context.Context, c *cluster.Cluster, node, contentType string, out *stream, bar barrier) *kubeletSide {
	t.Helper()
	w := newWire(done)
	rc := &rest.Config{
		Host:            c.URL,
		BearerToken:     c.NodeToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.CAData},
		ContentConfig:   rest.ContentConfig{ContentType: contentType},
		WrapTransport:   w.wrap,
	}
	if contentType == protobufType {
		rc.AcceptContentTypes = protobufType + "," + jsonType
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatalf("kubelet clientset: %v", err)
	}
	// The recorder only hears of pods dropped for a duplicate name, which an
	// apiserver cannot send; the startup observer only times pods.
	cfg := config.NewPodConfig(&record.FakeRecorder{}, noStartupSLI{})
	// The merge goroutine behind the channel reads it until it is closed,
	// which nothing does: as in the kubelet, it lives as long as the
	// process, idle once the source is cut off.
	ch := cfg.Channel(done, kubetypes.ApiserverSource)
	// The kubelet starts watching pods once its informer has synced the Node
	// object; there is no Node here to wait for.
	nodeSynced := func() bool { return true }
	config.NewSourceApiserver(logr.Discard(), cs, types.NodeName(node), nodeSynced, ch)
	go readKubelet(done, cfg.Updates(), out, bar)
	return &kubeletSide{cfg: cfg, wire: w}
}

// seenAPI reports whether the pod config merged its api source's first state.
func (k *kubeletSide) seenAPI() bool {
	return k.cfg.SeenAllSources(klog.Background(), sets.New[string](kubetypes.ApiserverSource))
}

func readKubelet(done context.Context, updates <-chan kubetypes.PodUpdate, out *stream, bar barrier) {
	for {
		select {
		case <-done.Done():
			return
		case u := <-updates:
			rec := update{Op: kubeletOp(u.Op), Source: u.Source, Pods: []string{}}
			step := noStep
			for _, p := range u.Pods {
				key := p.Namespace + "/" + p.Name
				rec.Pods = append(rec.Pods, key)
				var deletion *time.Time
				if p.DeletionTimestamp != nil {
					deletion = &p.DeletionTimestamp.Time
				}
				// The apiserver refuses a pod without containers.
				rec.Views = append(rec.Views, view(key, p.Labels, p.Spec.Containers[0].Image, string(p.Status.Phase), deletion, p.DeletionGracePeriodSeconds))
				if s, ok := bar.step(key, p.Labels); ok {
					step = s
				}
			}
			out.add(rec, step)
		}
	}
}

// kubeletOp names the kubelet's operations as podconfig.Op does. The
// kubelet's pod config has no SET of its own since its sources send whole
// states only; it publishes the other five.
func kubeletOp(op kubetypes.PodOperation) string {
	switch op {
	case kubetypes.ADD:
		return "ADD"
	case kubetypes.UPDATE:
		return "UPDATE"
	case kubetypes.DELETE:
		return "DELETE"
	case kubetypes.REMOVE:
		return "REMOVE"
	case kubetypes.RECONCILE:
		return "RECONCILE"
	}
	return "PodOperation(" + strconv.Itoa(int(op)) + ")"
}

type noStartupSLI struct{}

func (noStartupSLI) ObservedPodOnWatch(klog.Logger, *v1.Pod, time.Time) {}
