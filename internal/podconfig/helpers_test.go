package podconfig

import (
	"fmt"
	"strings"
	"time"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// fixedClock returns t0, then a second later on every call, so the seen stamp
// shows which merge first saw a pod.
func fixedClock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n-1) * time.Second)
	}
}

type podOpt func(*api.Pod)

// pod builds a small pod in namespace default; uid defaults to "uid-"+name.
func pod(name string, opts ...podOpt) *api.Pod {
	p := &api.Pod{
		TypeMeta: meta.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		Metadata: meta.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "1"},
		Spec:     api.PodSpec{NodeName: "node-a", Containers: []api.Container{{Name: "c", Image: "img:1"}}},
		Status:   api.PodStatus{Phase: api.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func rv(v string) podOpt    { return func(p *api.Pod) { p.Metadata.ResourceVersion = v } }
func uid(v string) podOpt   { return func(p *api.Pod) { p.Metadata.UID = v } }
func ns(v string) podOpt    { return func(p *api.Pod) { p.Metadata.Namespace = v } }
func image(v string) podOpt { return func(p *api.Pod) { p.Spec.Containers[0].Image = v } }
func phase(v string) podOpt { return func(p *api.Pod) { p.Status.Phase = v } }
func podIP(v string) podOpt { return func(p *api.Pod) { p.Status.PodIP = v } }
func grace(v int64) podOpt  { return func(p *api.Pod) { p.Metadata.DeletionGracePeriodSeconds = &v } }
func deleting(v int64) podOpt {
	return func(p *api.Pod) { d := t0; p.Metadata.DeletionTimestamp = &d; grace(v)(p) }
}
func label(k, v string) podOpt { return func(p *api.Pod) { setMap(&p.Metadata.Labels, k, v) } }
func ann(k, v string) podOpt   { return func(p *api.Pod) { setMap(&p.Metadata.Annotations, k, v) } }

func setMap(m *map[string]string, k, v string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

func pods(ps ...*api.Pod) []*api.Pod { return ps }

// summary renders updates as "OP source: ns/name@rv ..." lines, which show what a
// test cares about and compare with cmp.Diff.
func summary(us []PodUpdate) []string {
	out := []string{}
	for _, u := range us {
		names := make([]string, len(u.Pods))
		for i, p := range u.Pods {
			names[i] = fmt.Sprintf("%s@%s", FullName(p), p.Metadata.ResourceVersion)
		}
		out = append(out, fmt.Sprintf("%s %s: %s", u.Op, u.Source, strings.Join(names, " ")))
	}
	return out
}

// reports collects what a PodConfig reports.
type reports struct{ errs []error }

func (r *reports) report(_ string, err error) { r.errs = append(r.errs, err) }
