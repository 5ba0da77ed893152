package text

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

func ch(op, path, from, value string) trace.Change {
	c := trace.Change{Op: op, Path: path}
	if from != "" {
		c.From = json.RawMessage(from)
	}
	if value != "" {
		c.Value = json.RawMessage(value)
	}
	return c
}

func TestChangeText(t *testing.T) {
	long := `"` + strings.Repeat("x", 100) + `"`
	tests := []struct {
		c    trace.Change
		want string
	}{
		{ch("replace", "/spec/containers/0/image", `"nginx:1.27"`, `"nginx:1.28"`), `~ /spec/containers/0/image: "nginx:1.27" -> "nginx:1.28"`},
		{ch("add", "/metadata/labels/tier", "", `"web"`), `+ /metadata/labels/tier: "web"`},
		{ch("remove", "/metadata/annotations/a", `"b"`, ""), `- /metadata/annotations/a: "b"`},
		{ch("add", "/x", "", long), `+ /x: "` + strings.Repeat("x", diffValueCap-2) + "…"},
	}
	for _, tt := range tests {
		if got := ChangeText(tt.c); got != tt.want {
			t.Errorf("ChangeText(%v):\ngot  %s\nwant %s", tt.c, got, tt.want)
		}
	}
}
