package probecmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/cli/clitest"
	"github.com/podwatch/podwatch/internal/probe"
)

// A line per probe and a summary, in text and in JSON.
func TestProbePrinter(t *testing.T) {
	samples := []probe.Sample{
		{Probe: 1, Sent: clitest.Seen, ResourceVersion: "12", WatchResourceVersion: "10", Lag: 1500 * time.Microsecond, RVLag: 2},
		{Probe: 2, Sent: clitest.Seen, ResourceVersion: "13", WatchResourceVersion: "13", Lost: true},
	}
	sum := &probe.Summary{Probes: 1, Lost: 1, Sampled: 1,
		Lag: probe.Quantiles{P50: 0.0015, P99: 0.0015, Max: 0.0015}, RVLag: probe.Quantiles{P50: 2, P99: 2, Max: 2}}

	var text bytes.Buffer
	p := probePrinter{w: &text}
	for _, s := range samples {
		p.sample(s)
	}
	p.summary(sum)
	want := "probe 1: lag 0.002s, 2 resourceVersions behind (patched at 12, watch at 10)\n" +
		"probe 2: lost: the annotation did not come (patched at resourceVersion 13)\n" +
		"summary: 1 probe arrived, 1 lost; lag p50 0.002s p99 0.002s max 0.002s; resourceVersions behind p50 2 p99 2 max 2 (over 1 probe)\n"
	if text.String() != want {
		t.Fatalf("text:\n%s\nwant:\n%s", text.String(), want)
	}

	var js bytes.Buffer
	p = probePrinter{w: &js, json: true}
	for _, s := range samples {
		p.sample(s)
	}
	p.summary(sum)
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d JSON lines, want 3:\n%s", len(lines), js.String())
	}
	var first, second map[string]any
	var last struct {
		Summary struct {
			Probes, Lost int
			Lag          map[string]float64 `json:"lag_s"`
			RVLag        map[string]float64 `json:"rvLag"`
		} `json:"summary"`
	}
	for i, v := range []any{&first, &second, &last} {
		if err := json.Unmarshal([]byte(lines[i]), v); err != nil {
			t.Fatalf("line %d %q: %v", i, lines[i], err)
		}
	}
	if first["lag_s"] != 0.0015 || first["rvLag"] != 2.0 || first["resourceVersion"] != "12" || first["lost"] != nil {
		t.Errorf("first probe %v", first)
	}
	if second["lost"] != true || second["lag_s"] != nil {
		t.Errorf("lost probe %v: want lost and no lag", second)
	}
	if last.Summary.Probes != 1 || last.Summary.Lost != 1 || last.Summary.Lag["p99"] != 0.0015 || last.Summary.RVLag["max"] != 2 {
		t.Errorf("summary %+v", last.Summary)
	}
}
