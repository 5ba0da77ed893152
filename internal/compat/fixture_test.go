package compat

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// replayFaults is one fault of every kind the replay injects, with small
// parameters (a stall of 1s, a drip of 1ms a byte), and "" for a clean run.
var replayFaults = []string{
	"",
	"cut:events=2",
	"cut:bytes=1500",
	"half-event:events=1",
	"gone",
	"gone-event:events=1",
	"429:wait=1s",
	"500",
	"html:status=502",
	"stall:events=1,wait=1s",
	"drip:events=1,wait=1ms",
	"garbage:events=1",
	"oversized:events=1,size=4MiB",
}

// convergeBound is how long a client may take, from its start, to push the
// final state of a clean replay: the bundled recordings last under 10 s at
// --speed 1 (clean runs were seen to take up to 13 s on a loaded 2-core
// machine).
const convergeBound = 25 * time.Second

// faultedConvergeBound is convergeBound for a replay with a fault: the fault
// adds client-go's own backoff (0.8 s doubling, jittered) and retries, which
// no server controls, and a drip sends the rest of a body a byte a
// millisecond; faulted runs were seen to take up to 23 s with 32 runs at
// once on a loaded 2-core machine.
const faultedConvergeBound = 60 * time.Second

// settleWindow is how long the suite keeps watching after the final state is
// pushed, so that a push after it (a relist to an older state) is seen too.
const settleWindow = 2 * time.Second

// kubeletNode is the node every bundled fixture watches.
const kubeletNode = "node-a"

func bundledFixtures(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "fixtures", "*", "recording.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no bundled fixtures found (%v)", err)
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// TestKubeletSourceReplay runs client-go's reflector, as the kubelet runs it,
// against `podwatch serve` for every bundled fixture, clean and under every
// fault kind, in each client mode: every push must be a recorded state, no
// push may go back in time, and the last must be the recording's final state.
func TestKubeletSourceReplay(t *testing.T) {
	for _, dir := range bundledFixtures(t) {
		tl := fixtureTimeline(t, dir)
		for _, spec := range replayFaults {
			for _, mode := range clientModes {
				name := fmt.Sprintf("%s/%s/%s", filepath.Base(dir), faultName(spec), mode.name)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					args := []string{dir, "--speed", "1"}
					if spec != "" {
						args = append(args, "--fault", spec)
					}
					srv := startServe(t, args...)
					bound := convergeBound
					if spec != "" {
						bound = faultedConvergeBound
					}
					checkKubeletConverges(t, &rest.Config{Host: srv.URL}, mode, tl, bound)
				})
			}
		}
	}
}

func faultName(spec string) string {
	if spec == "" {
		return "clean"
	}
	kind, _, _ := strings.Cut(spec, ":")
	if strings.HasPrefix(spec, "cut:bytes") {
		return "cut-bytes"
	}
	return kind
}

// checkKubeletConverges runs the kubelet's pod source against cfg until it
// pushes tl's final state (or bound passes), then proves every push.
func checkKubeletConverges(t *testing.T, cfg *rest.Config, mode clientMode, tl timeline, bound time.Duration) *pushLog {
	t.Helper()
	log := newPushLog()
	cfg.WrapTransport = log.recordRequests
	r := newKubeletReflector(t, cfg, kubeletNode, mode, log.push)
	runReflector(t, r)
	want := tl.final()
	pushes, ok := log.waitFor(bound, func(p podSet) bool { return maps.Equal(p, want.pods) })
	if ok {
		time.Sleep(settleWindow)
		pushes, _ = log.snapshot()
	}
	sent := log.sent()
	if !usedMode(mode, sent) {
		t.Errorf("client-go did not read the server in mode %s; its requests: %v", mode.name, sent)
	}
	checkFormat(t, mode, log)
	if _, err := tl.check(pushes); err != nil {
		t.Errorf("%v\nall pushes: %v\nrequests: %v", err, pushes, sent)
	}
	switch {
	case !ok:
		t.Errorf("the last push is not the final state %v (at resourceVersion %d) within %v; pushes: %v\nrequests: %v",
			want.pods, want.rv, bound, pushes, sent)
	case !maps.Equal(pushes[len(pushes)-1], want.pods):
		t.Errorf("after the final state %v, client-go pushed %v; pushes: %v", want.pods, pushes[len(pushes)-1], pushes)
	}
	return log
}

// TestAnyInformerConverges: an informer that is not podwatch's (client-go with
// watch lists off, as any older informer reads) replays lifecycle to exactly
// its recorded final state, {shop/web-1@220, shop/web-4@230}.
func TestAnyInformerConverges(t *testing.T) {
	dir := filepath.Join(repoRoot, "testdata", "fixtures", "lifecycle")
	tl := fixtureTimeline(t, dir)
	if got, want := tl.final().pods.String(), "{shop/web-1@220 shop/web-4@230}"; got != want {
		t.Fatalf("lifecycle's final state: got %s, want %s", got, want)
	}
	srv := startServe(t, dir, "--speed", "1")
	checkKubeletConverges(t, &rest.Config{Host: srv.URL}, clientMode{name: "list", watchList: false}, tl, convergeBound)
}

// TestKubeletSourceReplayHTTP2 is the clean replay of every bundled fixture
// over HTTP/2 and TLS, as a kubelet reaches a real apiserver, to the
// kubelet's own client (protobuf first, watch lists on).
func TestKubeletSourceReplayHTTP2(t *testing.T) {
	for _, dir := range bundledFixtures(t) {
		tl := fixtureTimeline(t, dir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			ca := filepath.Join(t.TempDir(), "ca.pem")
			srv := startServe(t, dir, "--speed", "1", "--http2", "--ca-out", ca)
			// The address is logged before the certificate is saved.
			srv.waitLog(t, "--certificate-authority "+ca)
			cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAFile: ca}}
			log := checkKubeletConverges(t, cfg, clientModes[0], tl, convergeBound)
			if !slices.Contains(log.protos(), "HTTP/2.0") {
				t.Errorf("client-go never spoke HTTP/2 to the server: protocols %v", log.protos())
			}
		})
	}
}
