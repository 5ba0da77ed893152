package compat

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/model"
)

// modelSeeds are the histories every fault kind is played over; each seed
// also picks how the model answers: a watch from a compacted version as a 410
// answer or as an ERROR event, and watch lists served, or refused (422) as an
// apiserver with its WatchList gate off refuses them. (The model's "ignore",
// an apiserver from before watch lists, is left out: client-go 1.37 waits
// for the bookmark such a server never sends, and supports no server that old.)
var modelSeeds = []uint64{1, 2, 3}

func modelOptions(seed uint64) model.Options {
	return model.Options{
		Seed:        seed,
		GoneAsEvent: seed%2 == 0,
		WatchList:   []string{"", "", "refuse"}[seed%3],
	}
}

// modelFaults is one fault of each kind the model injects, with small
// parameters, struck on the first request it fits; nil is a clean run. The
// model's own dead and silent kinds are left out: they test a client's
// timeouts, not whether the server answers as an apiserver does.
func modelFaults() map[string][]fault.Fault {
	out := map[string][]fault.Fault{"clean": nil}
	for _, k := range fault.Kinds {
		f := fault.Fault{Kind: k, Nth: 1, Events: 1}
		switch k {
		case fault.TooMany, fault.Stall:
			f.Wait = time.Second
		case fault.Drip:
			f.Wait = time.Millisecond
		case fault.Oversized:
			f.Size = 4 << 20
		case fault.HTML:
			f.Status = 502
		}
		out[string(k)] = []fault.Fault{f}
	}
	return out
}

// modelChurn keeps a history short in wall time (about 6 s): 30 changes with
// gaps under 600 ms, a restart of at most a second.
func modelChurn(node string) model.ChurnOptions {
	return model.ChurnOptions{Node: node, Changes: 30, MaxGap: 600 * time.Millisecond, Restarts: 1, MaxDown: time.Second}
}

// firstPushBound bounds the wait for the client's first sync, before the churn
// starts, so that the churn happens while it watches.
const firstPushBound = 30 * time.Second

// TestKubeletSourceModel runs client-go's reflector, as the kubelet runs it,
// against the model apiserver through a seeded churn (changes, compactions, a
// restart) under each fault kind, in each client mode; then, faults off, it
// must reach the model's final state, and every push on the way must be a
// state the model had, in order.
func TestKubeletSourceModel(t *testing.T) {
	for kind, faults := range modelFaults() {
		for _, seed := range modelSeeds {
			for _, mode := range clientModes {
				t.Run(fmt.Sprintf("%s/seed%d/%s", kind, seed, mode.name), func(t *testing.T) {
					t.Parallel()
					runModel(t, seed, faults, mode)
				})
			}
		}
	}
}

func runModel(t *testing.T, seed uint64, faults []fault.Fault, mode clientMode) {
	hist := model.NewHistory(0)
	var story syncBuffer
	opts := modelOptions(seed)
	opts.Faults = faults
	opts.Logf = func(format string, args ...any) { story.WriteString(fmt.Sprintf(format, args...) + "\n") }
	srv := model.NewServer(hist, opts)
	defer srv.Close()
	churn := model.NewChurner(srv, rand.New(rand.NewPCG(seed, 0x636f6d706174)), modelChurn(kubeletNode))
	if err := churn.Populate(); err != nil {
		t.Fatalf("populate: %v", err)
	}
	tr := srv.Transport()
	defer tr.CloseIdleConnections()
	log := newPushLog()
	cfg := &rest.Config{Host: model.URL, Transport: tr, WrapTransport: log.recordRequests}
	r := newKubeletReflector(t, cfg, kubeletNode, mode, log.push)
	stop := runReflectorUntil(t, r)
	defer stop()
	if _, ok := log.waitFor(firstPushBound, func(podSet) bool { return true }); !ok {
		t.Errorf("no first push within %v; requests: %v\nmodel story:\n%s", firstPushBound, log.sent(), story.String())
		return
	}
	if err := churn.Run(); err != nil {
		t.Fatalf("churn: %v", err)
	}
	srv.StopFaults()
	tl := modelTimeline(hist, kubeletNode)
	want := tl.final()
	pushes, ok := log.waitFor(convergeBound, func(p podSet) bool { return maps.Equal(p, want.pods) })
	stop()
	if t.Failed() {
		return
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\nfaults struck: %q\nrequests: %v\nmodel story:\n%s", append(args, srv.Struck(), log.sent(), story.String())...)
	}
	if !usedMode(mode, log.sent()) {
		fail("client-go did not read the server in mode %s", mode.name)
	}
	checkFormat(t, mode, log)
	if _, err := tl.check(pushes); err != nil {
		fail("%v\nall pushes: %v", err, pushes)
	}
	if len(faults) > 0 && len(srv.Struck()) == 0 {
		fail("the fault %v never struck, so this run tested nothing of it", faults)
	}
	t.Logf("%d changes, %d pushes, %d requests, struck %q", hist.Changes(), len(pushes), srv.Requests(), srv.Struck())
	if !ok {
		fail("the last push is not the final state %v (at %d) within %v after the churn; pushes: %v", want.pods, want.rv, convergeBound, pushes)
	}
}

// modelTimeline is every state of node the model's history went through.
func modelTimeline(h *model.History, node string) timeline {
	rvs := []int64{h.Start()}
	for _, c := range h.After(h.Start()) {
		rvs = append(rvs, c.Pod.RV)
	}
	var tl timeline
	for _, rv := range rvs {
		pods, ok := h.StateAt(rv, node)
		if !ok {
			continue
		}
		s := podSet{}
		for _, p := range pods {
			s[p.Key()] = p.RV
		}
		tl = tl.add(state{rv, s})
	}
	return tl
}
