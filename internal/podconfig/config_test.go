package podconfig

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest/api"
)

var update = flag.Bool("update", false, "rewrite golden files")

const wait = 10 * time.Second

func recv(t *testing.T, c *PodConfig) PodUpdate {
	t.Helper()
	select {
	case u := <-c.Updates():
		return u
	case <-time.After(wait):
		t.Fatalf("no update within %v", wait)
		return PodUpdate{}
	}
}

func send(t *testing.T, ch chan<- PodUpdate, u PodUpdate) {
	t.Helper()
	select {
	case ch <- u:
	case <-time.After(wait):
		t.Fatalf("source channel did not take the update within %v", wait)
	}
}

// waitDone fails the test unless c's goroutines return in time.
func waitDone(t *testing.T, c *PodConfig) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatalf("PodConfig goroutines still running %v after their ctx ended", wait)
	}
}

func TestPodConfigMergesSources(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(Snapshot, Options{Now: fixedClock()})
	api, file := c.Channel(ctx, SourceAPI), c.Channel(ctx, SourceFile)
	if again := c.Channel(ctx, SourceAPI); again != api {
		t.Fatalf("a second Channel call for a source returned a new channel")
	}
	if c.SeenAllSources(nil) {
		t.Fatalf("SeenAllSources before any SET = true, want false")
	}

	send(t, api, PodUpdate{Op: SET, Pods: pods(pod("b"))})
	var got []PodUpdate
	got = append(got, recv(t, c))
	if c.SeenAllSources(nil) || !c.SeenAllSources([]string{SourceAPI}) {
		t.Fatalf("after the api SET: SeenAllSources(all) = %v, (api) = %v; want false, true",
			c.SeenAllSources(nil), c.SeenAllSources([]string{SourceAPI}))
	}
	send(t, file, PodUpdate{Op: SET, Pods: pods(pod("a", rv("")))})
	got = append(got, recv(t, c))
	if !c.SeenAllSources(nil) {
		t.Fatalf("SeenAllSources after both SETs = false, want true")
	}
	want := []string{"SET api: default/b@1", "SET file: default/a@ default/b@1"}
	if diff := cmp.Diff(want, summary(got)); diff != "" {
		t.Fatalf("updates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{SourceAPI, SourceFile}, c.Sources()); diff != "" {
		t.Fatalf("Sources (-want +got):\n%s", diff)
	}
	cancel()
	waitDone(t, c)
}

func TestPodConfigReportsThroughOptions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type report struct {
		source string
		err    error
	}
	reported := make(chan report, 1)
	c := New(Incremental, Options{Report: func(s string, err error) { reported <- report{s, err} }})
	send(t, c.Channel(ctx, SourceHTTP), PodUpdate{Op: SET, Pods: pods(pod("a"), pod("a", uid("2")))})
	u := recv(t, c)
	if diff := cmp.Diff([]string{"ADD http: default/a@1"}, summary([]PodUpdate{u})); diff != "" {
		t.Fatalf("updates (-want +got):\n%s", diff)
	}
	select {
	case r := <-reported:
		want := report{SourceHTTP, &DuplicateError{Source: SourceHTTP, Pod: "default/a", UID: "2"}}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(report{})); diff != "" {
			t.Fatalf("report (-want +got):\n%s", diff)
		}
	case <-time.After(wait):
		t.Fatalf("no report within %v", wait)
	}
}

func TestPodConfigStopsWhileBlockedOnConsumer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := New(Incremental, Options{Buffer: 1})
	ch := c.Channel(ctx, SourceAPI)
	// Fill Updates, then make the merger block publishing the next update.
	send(t, ch, PodUpdate{Op: SET, Pods: pods(pod("a"))})
	send(t, ch, PodUpdate{Op: ADD, Pods: pods(pod("b"))})
	cancel()
	waitDone(t, c)
}

func TestPodConfigStopsWhenChannelCloses(t *testing.T) {
	c := New(Incremental, Options{})
	ch := c.Channel(context.Background(), SourceFile)
	send(t, ch, PodUpdate{Op: SET})
	if u := recv(t, c); u.Op != ADD || len(u.Pods) != 0 {
		t.Fatalf("got %v, want an empty ADD", summary([]PodUpdate{u}))
	}
	close(ch)
	waitDone(t, c)
}

// TestPodConfigGolden runs the real pod through PodConfig and compares what comes
// out, annotations stamped from a fixed clock, with a golden file.
func TestPodConfigGolden(t *testing.T) {
	data, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatalf("read pod: %v", err)
	}
	p, err := api.DecodePod(data)
	if err != nil {
		t.Fatalf("DecodePod: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(Incremental, Options{Now: fixedClock()})
	send(t, c.Channel(ctx, SourceAPI), PodUpdate{Op: SET, Pods: pods(p)})
	u := recv(t, c)
	if u.Op != ADD || len(u.Pods) != 1 {
		t.Fatalf("got %v, want an ADD of one pod", summary([]PodUpdate{u}))
	}
	got, err := u.Pods[0].MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	golden := filepath.Join("testdata", "merged-pod.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("merged pod differs from %s (-want +got):\n%s", golden, diff)
	}
}
