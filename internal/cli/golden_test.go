package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/internal/cli/clitest"
)

// TestGolden runs the command against the scripted apiserver and compares
// its output with the golden files. Several cases share a golden file: the
// way the initial state is fetched, paged or defaulted must not change what
// is printed.
func TestGolden(t *testing.T) {
	clitest.Isolate(t)
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"text", []string{"--node", node1}, "text.golden"},
		{"text from the hostname", nil, "text.golden"},
		{"text from a paged list", []string{"--node", node1, "--watch-list=false", "--chunk-size", "1"}, "text.golden"},
		{"text from one list page", []string{"--node", node1, "--watch-list=false", "--chunk-size", "0"}, "text.golden"},
		{"text snapshot", []string{"--node", node1, "--mode", "snapshot"}, "text-snapshot.golden"},
		{"text snapshot-and-updates", []string{"--node", node1, "--mode", "snapshot-and-updates"}, "text-snapshot-and-updates.golden"},
		{"json", []string{"--node", node1, "-o", "json"}, "json.golden"},
		{"json long flags", []string{"--node", node1, "--output", "json", "--mode", "incremental"}, "json.golden"},
		{"json snapshot", []string{"--node", node1, "-o", "json", "--mode", "snapshot"}, "json-snapshot.golden"},
		{"json snapshot-and-updates", []string{"--node", node1, "-o", "json", "--mode", "snapshot-and-updates"}, "json-snapshot-and-updates.golden"},
		{"yaml", []string{"--node", node1, "-o", "yaml"}, "yaml.golden"},
		{"events json", []string{"--node", node1, "--events", "-o", "json"}, "events-json.golden"},
		{"events json from a list", []string{"--node", node1, "--events", "-o", "json", "--watch-list=false"}, "events-json-list.golden"},
		{"events text", []string{"--node", node1, "--events"}, "events-text.golden"},
		{"all nodes", []string{"--all-nodes", "--max-events", "6"}, "all-nodes.golden"},
		{"one namespace", []string{"--all-nodes", "-n", "jobs", "--max-events", "1"}, "namespace.golden"},
		{"one namespace, long flag", []string{"--all-nodes", "--namespace", "jobs", "--max-events", "1"}, "namespace.golden"},
		{"max events 2", []string{"--node", node1, "--max-events", "2"}, "text-max2.golden"},
		{"events max 2", []string{"--node", node1, "--events", "--max-events", "2"}, "events-text-max2.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := startFakeAPI(t)
			args := append([]string{"watch"}, api.connArgs()...)
			args = append(args, tt.args...)
			if !strings.Contains(strings.Join(tt.args, " "), "--max-events") {
				args = append(args, "--max-events", node1Count)
			}
			r := mustRun(t, args...)
			checkQuietEnd(t, r.stderr)
			checkGolden(t, tt.golden, r.stdout)
		})
	}
}

// TestEventsVerbatim checks that --events -o json prints each event exactly
// as the server sent it.
func TestEventsVerbatim(t *testing.T) {
	clitest.Isolate(t)
	for _, watchList := range []string{"--watch-list=true", "--watch-list=false"} {
		t.Run(watchList, func(t *testing.T) {
			api := startFakeAPI(t)
			args := append([]string{"watch", "--node", node1, "--events", "-o", "json", "--max-events", node1Count, watchList}, api.connArgs()...)
			r := mustRun(t, args...)
			got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if diff := cmp.Diff(api.Sent(), got); diff != "" {
				t.Fatalf("printed events differ from the sent ones (-sent +printed):\n%s", diff)
			}
		})
	}
}
