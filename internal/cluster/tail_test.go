package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{name: "under the limit", max: 8, writes: []string{"ab", "cd"}, want: "abcd"},
		{name: "exactly the limit", max: 4, writes: []string{"ab", "cd"}, want: "abcd"},
		{name: "drops the oldest bytes", max: 4, writes: []string{"abc", "def"}, want: "[... earlier output dropped ...]\ncdef"},
		{name: "one write over the limit", max: 3, writes: []string{"abcdef"}, want: "[... earlier output dropped ...]\ndef"},
		{name: "nothing written", max: 3, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &tailBuffer{max: tt.max}
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q): got %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Fatalf("String() (-want +got):\n%s", diff)
			}
		})
	}
}
