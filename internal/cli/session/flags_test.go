package session

import (
	"testing"

	"github.com/podwatch/podwatch/internal/cli/replay"
)

func TestSelectors(t *testing.T) {
	tests := []struct {
		node, extra string
		want        string
	}{
		{"node-1", "", "spec.nodeName=node-1"},
		{"node-1", "status.phase!=Failed", "spec.nodeName=node-1,status.phase!=Failed"},
		{"", "status.phase!=Failed", "status.phase!=Failed"},
		{"", "", ""},
		{`odd,na=me\`, "", `spec.nodeName=odd\,na\=me\\`},
	}
	for _, tt := range tests {
		got := selectorFor(tt.node, tt.extra)
		if got != tt.want {
			t.Errorf("selectorFor(%q, %q): got %q, want %q", tt.node, tt.extra, got, tt.want)
		}
		if back := replay.NodeFromSelector(got); back != tt.node {
			t.Errorf("NodeFromSelector(%q): got %q, want %q", got, back, tt.node)
		}
	}
	for path, want := range map[string]string{
		"/api/v1/pods":                     "",
		"/api/v1/namespaces/jobs/pods":     "jobs",
		"/prefix/api/v1/namespaces/a/pods": "a",
	} {
		if got := replay.NamespaceOf(path); got != want {
			t.Errorf("NamespaceOf(%q): got %q, want %q", path, got, want)
		}
	}
}
