package probe

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/podwatch/podwatch/rest"
)

// Annotation is the canary's annotation each probe writes: the probe's
// number and the moment its patch was sent.
const Annotation = "podwatch.io/probe"

// Options say what to probe and how often. Client and Node are required.
type Options struct {
	Client *rest.Client
	// Node is the node whose pods are watched and to which the canary is
	// bound.
	Node string
	// Namespace holds the canary; default "default".
	Namespace string
	// Canary names the canary pod; default "podwatch-probe-" + Node.
	Canary string
	// Every is the time from one probe's patch to the next; default 5s.
	Every time.Duration
	// Count ends the run after that many probes (arrived or lost); 0 runs
	// until ctx ends.
	Count int
	// Timeout is how long a probe waits for its annotation before it counts
	// as lost; default 30s.
	Timeout time.Duration
	// Report, when set, is told of each probe as it completes, on Run's
	// goroutine.
	Report func(Sample)
	// Now reads the wall clock both ends are timed on; default time.Now.
	Now func() time.Time
}

func (o *Options) defaults() error {
	switch {
	case o.Client == nil:
		return errors.New("probe: no client")
	case o.Node == "":
		return errors.New("probe: no node")
	case o.Every < 0 || o.Count < 0 || o.Timeout < 0:
		return errors.New("probe: negative interval, count or timeout")
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Canary == "" {
		o.Canary = "podwatch-probe-" + o.Node
	}
	if o.Every == 0 {
		o.Every = 5 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Run probes until Count probes are done or ctx ends, then deletes the
// canary and returns the summary. Ending ctx is a normal way to stop: the
// summary covers the probes completed, and the error is nil. Errors are
// *PermissionError for a write or watch the credentials may not make,
// *CanaryError for a canary that cannot be used, and a *CleanupError
// (beside the summary) when the canary could not be deleted.
func Run(ctx context.Context, opts Options) (sum *Summary, err error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	w := startWatch(ctx, opts)
	defer w.stop()
	if err := w.waitSynced(ctx); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return newSummary().finish(), nil
	}
	c := &canary{opts: &opts}
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if derr := c.delete(ctx); derr != nil {
			err = errors.Join(err, derr)
		}
	}()
	sum, err = probeLoop(ctx, &opts, c, w)
	return sum.finish(), err
}

// probeLoop makes one probe each interval, one at a time.
func probeLoop(ctx context.Context, opts *Options, c *canary, w *watcher) (*Summary, error) {
	sum := newSummary()
	tick := time.NewTicker(opts.Every)
	defer tick.Stop()
	for n := 1; opts.Count == 0 || n <= opts.Count; n++ {
		s, err := probeOnce(ctx, opts, c, w, n)
		if ctx.Err() != nil {
			return sum, nil // a probe cut short by the end is not counted
		}
		if err != nil {
			return sum, err
		}
		sum.add(s)
		if opts.Report != nil {
			opts.Report(s)
		}
		if opts.Count != 0 && n == opts.Count {
			break
		}
		select {
		case <-ctx.Done():
			return sum, nil
		case <-tick.C:
		}
	}
	return sum, nil
}

// probeOnce patches the canary with probe n's value and waits for it on
// the watch.
func probeOnce(ctx context.Context, opts *Options, c *canary, w *watcher, n int) (Sample, error) {
	sent := opts.Now()
	value := strconv.Itoa(n) + " " + sent.UTC().Format(time.RFC3339Nano)
	arrived := w.expect(value)
	rv, err := c.patch(ctx, value)
	if err != nil {
		w.expect("")
		return Sample{}, err
	}
	s := Sample{Probe: n, Sent: sent, ResourceVersion: rv, WatchResourceVersion: w.resourceVersion()}
	s.RVLag = rvLag(rv, s.WatchResourceVersion)
	timeout := time.NewTimer(opts.Timeout)
	defer timeout.Stop()
	select {
	case at := <-arrived:
		s.Lag = max(0, at.Sub(sent))
	case <-timeout.C:
		w.expect("")
		s.Lost = true
	case <-ctx.Done():
		w.expect("")
	}
	return s, nil
}

// rvLag is patched minus watched, or 0 when the watch is already there
// (its event beat the PATCH's answer) or either is not a number.
func rvLag(patched, watched string) int64 {
	p, err1 := strconv.ParseInt(patched, 10, 64)
	w, err2 := strconv.ParseInt(watched, 10, 64)
	if err1 != nil || err2 != nil || w >= p {
		return 0
	}
	return p - w
}

// Sample is one probe.
type Sample struct {
	Probe int
	// Sent is when the probe's PATCH was sent, on the local clock.
	Sent time.Time
	// ResourceVersion is the canary's after the patch, from the PATCH's
	// answer; WatchResourceVersion is the watch's (its last event, listed
	// state or bookmark) when that answer came.
	ResourceVersion, WatchResourceVersion string
	// Lag is from Sent to the moment the watch applied the annotation.
	Lag time.Duration
	// RVLag is ResourceVersion minus WatchResourceVersion, or 0 when the
	// watch had already passed it: the versions the cluster had moved past
	// what the watch had shown when the patch was acknowledged. A watch of
	// one node's pods sees none of the cluster's other writes, so a
	// current but quiet watch shows the writes since its last event or
	// bookmark (usually the previous probe's).
	RVLag int64
	// Lost says the annotation did not come within Options.Timeout (Lag is
	// then 0 and left out of the summary).
	Lost bool
}
