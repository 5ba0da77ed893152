package probe

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"
)

const testNode = "node-a"

// testWait bounds every run; reaching it is a failure.
const testWait = 30 * time.Second

func run(t *testing.T, ctx context.Context, opts Options) (*Summary, []Sample, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, testWait)
	defer cancel()
	var samples []Sample
	report := opts.Report
	opts.Report = func(s Sample) {
		samples = append(samples, s)
		if report != nil {
			report(s)
		}
	}
	opts.Node = testNode
	if opts.Every == 0 {
		opts.Every = time.Millisecond
	}
	sum, err := Run(ctx, opts)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the probe did not end within %s", testWait)
	}
	return sum, samples, err
}

func canaryPod(node string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "podwatch-probe-" + testNode, "namespace": "default", "resourceVersion": "50"},
		"spec":     map[string]any{"nodeName": node}}
}

// Each probe's annotation arrives on the watch: a lag in seconds and in
// resourceVersions for each, the canary created once and deleted at the end.
func TestProbeMeasures(t *testing.T) {
	f, c := newFakeAPI(t)
	sum, samples, err := run(t, context.Background(), Options{Client: c, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 3 || sum.Probes != 3 || sum.Lost != 0 || sum.Sampled != 3 {
		t.Fatalf("%d samples, summary %+v; want 3 arrived", len(samples), sum)
	}
	for i, s := range samples {
		if s.Probe != i+1 || s.Lost || s.Lag < 0 || s.RVLag < 0 || s.ResourceVersion == "" || s.WatchResourceVersion == "" {
			t.Errorf("sample %d: %+v", i, s)
		}
		if i > 0 && mustInt(t, s.ResourceVersion) <= mustInt(t, samples[i-1].ResourceVersion) {
			t.Errorf("probe %d patched at %s, not after probe %d's %s", s.Probe, s.ResourceVersion, i, samples[i-1].ResourceVersion)
		}
	}
	if f.created != 1 || !slices.Equal(f.deleted, []string{"podwatch-probe-" + testNode}) || len(f.left()) != 0 {
		t.Fatalf("created %d, deleted %v, left %v; want the canary created once and deleted", f.created, f.deleted, f.left())
	}
}

func mustInt(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A canary left on the node by an earlier probe is adopted (and deleted at
// the end); one of that name on another node is refused and left alone.
func TestProbeCanaryExists(t *testing.T) {
	t.Run("on the node", func(t *testing.T) {
		f, c := newFakeAPI(t)
		f.pods["podwatch-probe-"+testNode] = canaryPod(testNode)
		sum, _, err := run(t, context.Background(), Options{Client: c, Count: 1})
		if err != nil || sum.Probes != 1 {
			t.Fatalf("summary %+v, error %v; want one probe", sum, err)
		}
		if len(f.left()) != 0 {
			t.Fatalf("left %v, want the adopted canary deleted", f.left())
		}
	})
	t.Run("on another node", func(t *testing.T) {
		f, c := newFakeAPI(t)
		f.pods["podwatch-probe-"+testNode] = canaryPod("node-b")
		_, _, err := run(t, context.Background(), Options{Client: c, Count: 1})
		var ce *CanaryError
		if !errors.As(err, &ce) || ce.BoundTo != "node-b" {
			t.Fatalf("error %v, want a *CanaryError naming node-b", err)
		}
		if len(f.left()) != 1 {
			t.Fatalf("left %v, want another's pod left alone", f.left())
		}
	})
}

// A patch whose event never comes is lost after the timeout, and counted.
func TestProbeLost(t *testing.T) {
	f, c := newFakeAPI(t)
	f.muted = true
	sum, samples, err := run(t, context.Background(), Options{Client: c, Count: 2, Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lost != 2 || sum.Probes != 0 || len(samples) != 2 || !samples[0].Lost || !samples[1].Lost {
		t.Fatalf("summary %+v, samples %+v; want two lost", sum, samples)
	}
	if len(f.left()) != 0 {
		t.Fatalf("left %v", f.left())
	}
}

// A 403 names the verb refused and where; the canary is deleted whenever
// it was made.
func TestProbeForbidden(t *testing.T) {
	for _, tt := range []struct {
		verb, wantVerb, wantNS string
		cleanup                bool
	}{
		{"list", "list and watch", "", false},
		{"create", "create", "default", false},
		{"patch", "patch", "default", false},
		{"delete", "delete", "default", true},
	} {
		t.Run(tt.verb, func(t *testing.T) {
			f, c := newFakeAPI(t)
			f.forbid[tt.verb] = true
			_, _, err := run(t, context.Background(), Options{Client: c, Count: 1})
			var pe *PermissionError
			if !errors.As(err, &pe) || pe.Verb != tt.wantVerb || pe.Namespace != tt.wantNS || pe.Resource != "pods" {
				t.Fatalf("error %v, want a *PermissionError to %s pods in %q", err, tt.wantVerb, tt.wantNS)
			}
			var ce *CleanupError
			if errors.As(err, &ce) != tt.cleanup {
				t.Fatalf("error %v: cleanup error %v, want %v", err, ce != nil, tt.cleanup)
			}
			if want := map[bool]int{true: 1, false: 0}[tt.cleanup]; len(f.left()) != want {
				t.Fatalf("left %v, want %d", f.left(), want)
			}
		})
	}
}

// Ending the context (Ctrl-C) ends the probe cleanly, with the probes
// done so far, and deletes the canary.
func TestProbeCancelDeletesCanary(t *testing.T) {
	f, c := newFakeAPI(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, _, err := run(t, ctx, Options{Client: c, Report: func(s Sample) {
		if s.Probe == 2 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Probes != 2 {
		t.Fatalf("summary %+v, want the 2 probes before the cancel", sum)
	}
	if len(f.left()) != 0 || len(f.deleted) != 1 {
		t.Fatalf("left %v, deleted %v; want the canary deleted", f.left(), f.deleted)
	}
}

// The summary keeps at most sampleBound probes, with exact quantiles up
// to it and an exact max past it.
func TestSummary(t *testing.T) {
	s := newSummary()
	for i := 1; i <= 100; i++ {
		s.add(Sample{Lag: time.Duration(i) * time.Millisecond, RVLag: int64(i)})
	}
	s.add(Sample{Lost: true})
	s.finish()
	want := Quantiles{P50: 50, P99: 99, Max: 100}
	if s.RVLag != want || s.Lag.P50 != 0.050 || s.Lag.Max != 0.100 || s.Probes != 100 || s.Lost != 1 {
		t.Fatalf("summary %+v, want rv quantiles %+v and lag in seconds", s, want)
	}
	big := 3 * sampleBound
	for i := 0; i < big; i++ {
		s.add(Sample{RVLag: int64(i % 1000)})
	}
	s.add(Sample{RVLag: 5000})
	s.finish()
	if len(s.sample) != sampleBound || s.Sampled != sampleBound || s.Probes != 100+big+1 || s.RVLag.Max != 5000 {
		t.Fatalf("kept %d, sampled %d, probes %d, max %v; want %d kept, every probe counted, the max exact",
			len(s.sample), s.Sampled, s.Probes, s.RVLag.Max, sampleBound)
	}
}
