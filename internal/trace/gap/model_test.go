package gap

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/model"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/tracetest"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

const modelNode = "node-a"

// modelLedger is the model's history as a node's watch would have told it:
// a Ledger that knows what the model did while the client was away.
type modelLedger struct{ h *model.History }

func (modelLedger) Source() string { return "model" }

func (l modelLedger) Between(from, to string) []LedgerEntry {
	lo, err1 := strconv.ParseInt(from, 10, 64)
	hi, err2 := strconv.ParseInt(to, 10, 64)
	if err1 != nil || err2 != nil {
		return nil
	}
	var out []LedgerEntry
	for _, c := range l.h.After(lo) {
		if c.Pod.RV > hi || c.Pod.Node != modelNode {
			continue
		}
		typ := "MODIFIED"
		switch c.Op {
		case model.Create, model.Bind:
			typ = "ADDED"
		case model.Delete:
			typ = "DELETED"
		}
		out = append(out, LedgerEntry{Type: typ, Namespace: c.Pod.Namespace, Name: c.Pod.Name, ResourceVersion: strconv.FormatInt(c.Pod.RV, 10)})
	}
	return out
}

// TestGapAuditAgainstModel runs a traced reflector against the model
// apiserver, whose first watch a fault cuts after one change. While the reflector waits out
// its backoff (held there by its Observe hook, so nothing depends on
// timing) the model deletes a pod of the node, changes another, creates
// and deletes a third, creates a fourth and deletes one of another node,
// then compacts: the resumed watch gets 410, the reflector relists, and the
// audit, with the model's history as its ledger, names the first three and
// nothing else.
func TestGapAuditAgainstModel(t *testing.T) {
	srv := model.NewServer(model.NewHistory(100), model.Options{GoneAsEvent: true,
		Faults: []fault.Fault{mustParseFault(t, "cut:events=1,on=watch,nth=1")}})
	t.Cleanup(srv.Close)
	pods := map[string]model.Pod{}
	apply := func(op model.Op, name, node string) model.Pod {
		t.Helper()
		p, ok := pods[name]
		if !ok {
			p = model.Pod{Namespace: "ns", Name: name, UID: "uid-" + name, Node: node, Image: "img", Phase: "Pending"}
		}
		if op == model.Status {
			p.Phase = "Running"
		}
		p.RV = srv.RV() + 1
		if err := srv.Apply(model.Change{Op: op, Pod: p}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		pods[name] = p
		return p
	}
	gone, changed := apply(model.Create, "gone", modelNode), apply(model.Create, "changed", modelNode)
	apply(model.Create, "kept", modelNode)
	apply(model.Create, "elsewhere", "node-b")

	out := &tracetest.Buffer{}
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(out)}, Analyses: []trace.Analysis{New(modelLedger{srv.History()})}})
	in := trace.NewInstrument[*api.Pod](tr)
	transport := srv.Transport()
	t.Cleanup(transport.CloseIdleConnections)
	client, err := rest.NewClient(rest.Config{Host: model.URL, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	watching, paused, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	relisted := make(chan struct{})
	var watches, backoffs, replaces int
	var relists []cache.RelistCause
	observe := func(st cache.Step) {
		in.Observe(st)
		switch st.Kind {
		case cache.StepWatch:
			if watches++; watches == 1 {
				close(watching)
			}
		case cache.StepBackoff:
			if backoffs++; backoffs == 1 {
				close(paused)
				<-release
			}
		case cache.StepRelist:
			relists = append(relists, st.Cause)
		case cache.StepReplace:
			if replaces++; replaces == 2 {
				close(relisted)
			}
		}
	}
	store := in.WrapStore(cache.NewUndeltaStore(in.Pushed, cache.MetaNamespaceKey[*api.Pod]))
	lw := cache.NewListWatchFromClient(client, "pods", "", rest.OneTermEqualSelector("spec.nodeName", modelNode), api.Codec)
	r := cache.NewReflector[*api.Pod](lw, store, cache.ReflectorOptions{Observe: observe,
		Backoff: cache.Backoff{Initial: time.Millisecond, Max: time.Millisecond}, Rand: func() float64 { return 0 }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	if !waitClosed(t, watching) {
		t.Fatalf("no watch within 30s; trace:\n%s", out.String())
	}
	// The watch carries this change, and the fault cuts it after it.
	apply(model.Status, "kept", modelNode)
	if !waitClosed(t, paused) {
		t.Fatalf("no backoff after the cut watch within 30s; trace:\n%s", out.String())
	}

	apply(model.Delete, "gone", modelNode)
	changed2 := apply(model.Status, "changed", modelNode)
	brief := apply(model.Create, "brief", modelNode)
	briefGone := apply(model.Delete, "brief", modelNode)
	apply(model.Create, "new", modelNode)
	apply(model.Delete, "elsewhere", "node-b")
	srv.Compact(srv.RV())
	close(release)
	if !waitClosed(t, relisted) {
		t.Fatalf("no relist within 30s; trace:\n%s", out.String())
	}
	cancel()
	<-done
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	if !slices.Equal(relists, []cache.RelistCause{cache.RelistGone}) {
		t.Fatalf("relists %v: want one, after the resumed watch's 410", relists)
	}
	var got []trace.Missed
	var stop *trace.Stop
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var s struct {
			Missed *trace.Missed
			Stop   *trace.Stop
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if s.Missed != nil {
			got = append(got, *s.Missed)
		}
		if s.Stop != nil {
			stop = s.Stop
		}
	}
	rv := func(p model.Pod) string { return strconv.FormatInt(p.RV, 10) }
	want := []trace.Missed{
		{How: trace.MissedSkipped, Namespace: "ns", Name: "changed", From: rv(changed), To: rv(changed2)},
		{How: trace.MissedDeleted, Namespace: "ns", Name: "gone", From: rv(gone)},
		{How: trace.MissedUnseen, Namespace: "ns", Name: "brief", From: rv(brief), To: rv(briefGone)},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(trace.Missed{}, "Explain", "State")); diff != "" {
		t.Fatalf("missed (-want +got):\n%s\ntrace:\n%s", diff, out.String())
	}
	if stop == nil || stop.Missed != len(want) {
		t.Fatalf("summary %+v: want %d missed", stop, len(want))
	}
}

func mustParseFault(t *testing.T, spec string) fault.Fault {
	t.Helper()
	f, err := fault.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// waitClosed says whether ch closed within a generous bound.
func waitClosed(t *testing.T, ch <-chan struct{}) bool {
	t.Helper()
	select {
	case <-ch:
		return true
	case <-time.After(30 * time.Second):
		return false
	}
}
