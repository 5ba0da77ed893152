package rundiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func items(texts string) []Shown {
	var out []Shown
	for _, t := range strings.Fields(texts) {
		out = append(out, Shown{Text: t})
	}
	return out
}

func texts(s []Shown) string {
	var out []string
	for _, x := range s {
		out = append(out, x.Text)
	}
	return strings.Join(out, " ")
}

func TestOnlyIn(t *testing.T) {
	tests := []struct {
		name, a, b, onlyA, onlyB string
	}{
		{"same", "a b c", "a b c", "", ""},
		{"one more in b", "a b c", "a b x c", "", "x"},
		{"replaced", "a b c d", "a x c d", "b", "x"},
		{"moved", "a b c d", "b c d a", "a", "a"},
		{"a empty", "", "a b", "", "a b"},
		{"repeats", "a a b a", "a b a a", "a", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := onlyIn(items(tt.a), items(tt.b))
			if diff := cmp.Diff(tt.onlyA+"|"+tt.onlyB, texts(got.A)+"|"+texts(got.B)); diff != "" {
				t.Fatalf("only in a|b (-want +got):\n%s", diff)
			}
			if got.Approximate {
				t.Fatal("approximate for a small input")
			}
		})
	}
}

// Past maxCells the leftovers are matched by count, and say so.
func TestOnlyInByCountPastTheBound(t *testing.T) {
	n := 2100 // (n+1)^2 > maxCells
	a, b := make([]Shown, n), make([]Shown, n)
	for i := range n {
		a[i] = Shown{Text: string(rune('a' + i%20))}
		b[n-1-i] = a[i]
	}
	a = append(a[:n/2], append([]Shown{{Text: "only-a"}}, a[n/2:]...)...)
	b = append(b, Shown{Text: "only-b"})
	got := onlyIn(a, b)
	if !got.Approximate || texts(got.A) != "only-a" || texts(got.B) != "only-b" {
		t.Fatalf("got approximate=%v, only in a %q, only in b %q", got.Approximate, texts(got.A), texts(got.B))
	}
}
