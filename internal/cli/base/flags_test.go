package base

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantPos []string
		wantN   string
		wantV   bool
	}{
		{"flags first", []string{"-n", "x", "--v", "a"}, []string{"a"}, "x", true},
		{"positional first", []string{"a", "--namespace", "x", "-v"}, []string{"a"}, "x", true},
		{"between", []string{"a", "-n=x", "b"}, []string{"a", "b"}, "x", false},
		{"after --", []string{"-n", "x", "--", "-v", "a"}, []string{"-v", "a"}, "x", false},
		{"none", nil, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCommand("test", "")
			var n string
			var v bool
			c.Flags.StringVar(&n, "namespace", "", "")
			c.Alias("n", "namespace")
			c.Flags.BoolVar(&v, "v", false, "")
			pos, err := c.Parse(nil, tt.args)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if diff := cmp.Diff(tt.wantPos, pos); diff != "" {
				t.Errorf("positional (-want +got):\n%s", diff)
			}
			if n != tt.wantN || v != tt.wantV {
				t.Errorf("got namespace %q and v %t, want %q and %t", n, v, tt.wantN, tt.wantV)
			}
			if got := c.Set("namespace"); got != (tt.wantN != "") {
				t.Errorf("set(namespace): got %t, want %t", got, tt.wantN != "")
			}
		})
	}
}

// A flag's help is folded at 80 columns, between words, its default
// included: a line of help never breaks inside a word on a terminal.
func TestUsageFoldsFlagHelp(t *testing.T) {
	c := NewCommand("test", "Usage: podwatch test\n")
	c.Flags.String("long", "x", strings.TrimSpace(strings.Repeat("a word of help ", 12)))
	var out strings.Builder
	c.printUsage(&out)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"Usage: podwatch test",
		"",
		"Flags:",
		"  --long string",
		"      a word of help a word of help a word of help a word of help a word of help",
		"        a word of help a word of help a word of help a word of help a word of",
		"        help a word of help a word of help (default x)",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}
