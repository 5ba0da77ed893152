package e2e

import (
	"testing"

	"github.com/podwatch/podwatch/internal/cluster"
	"github.com/podwatch/podwatch/internal/trace"
	"github.com/podwatch/podwatch/internal/trace/h2tap"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
)

// clientMode is how a test that watches over HTTP/2 runs podwatch's client:
// as a program runs it, or traced, with the trace's tap on each HTTP/2
// connection. A traced client must be the untraced one plus observation
// (the same transport, pool and pings), so that a connection bug shows
// either way; each such test runs in both modes, as subtests of the one
// that holds the apiserver they share.
type clientMode struct {
	name   string
	traced bool
}

var clientModes = []clientMode{{name: "untraced"}, {name: "traced", traced: true}}

// inEachMode runs test once per mode, each as a subtest named after it.
func inEachMode(t *testing.T, test func(t *testing.T, m clientMode)) {
	for _, m := range clientModes {
		t.Run(m.name, func(t *testing.T) { test(t, m) })
	}
}

// ns is a name of the mode's own for a namespace, or any prefix of names
// on the shared apiserver.
func (m clientMode) ns(name string) string {
	if m.traced {
		return name + "-traced"
	}
	return name
}

// configure readies cfg for the mode. Traced, it attaches a trace, and t's
// cleanup (after those registered later, such as a reflector's stop)
// checks that the trace did tap the client's HTTP/2 connections.
func (m clientMode) configure(t *testing.T, cfg *rest.Config) {
	t.Helper()
	if !m.traced {
		return
	}
	out := &lockedBuffer{}
	tr := trace.New(trace.Options{Sinks: []trace.Sink{trace.JSON(out)}, Tap: h2tap.New()})
	trace.NewInstrument[*api.Pod](tr).Configure(cfg)
	t.Cleanup(func() {
		if err := tr.Close(); err != nil {
			t.Errorf("close the trace: %v", err)
		}
		conns, frames := 0, 0
		for _, s := range parseTrace[tracedStep](t, out.String()) {
			switch s.Kind {
			case trace.KindConn:
				conns++
			case trace.KindFrame:
				frames++
			}
		}
		if conns == 0 || frames == 0 {
			t.Errorf("the trace tapped %d connections and told %d frames; want the HTTP/2 connections the test's requests went over", conns, frames)
		}
	})
}

// newClient is newClient in the mode.
func (m clientMode) newClient(t *testing.T, c *cluster.Cluster, token string, trips *tripLog) *rest.Client {
	t.Helper()
	cfg := clusterConfig(c, token)
	if trips != nil {
		cfg.WrapTransport = trips.wrap
	}
	m.configure(t, &cfg)
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("rest.NewClient: %v", err)
	}
	return client
}
