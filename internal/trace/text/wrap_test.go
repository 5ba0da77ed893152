package text

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

var escapeRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// checkWrapped checks lines laid out from head and text at width: none is
// wider, continuations start under the text, no escape sequence is cut,
// nothing is lost, and a word that fits on a line is never broken.
// Continuations start under the text, or halfway across when that is less.
func checkWrapped(t *testing.T, lines []string, head, text string, width int) {
	t.Helper()
	all := strings.Join(lines, "\n")
	if !strings.HasPrefix(lines[0], head) {
		t.Fatalf("the first line does not begin with the head %q:\n%s", head, all)
	}
	cont := min(visibleLen(head)+contIndent, width/2)
	var words []string
	for i, l := range lines {
		if n := visibleLen(l); n > width {
			t.Errorf("line %d is %d columns wide, more than %d: %q", i+1, n, width, l)
		}
		if strings.Count(l, "\x1b") != len(escapeRE.FindAllString(l, -1)) {
			t.Errorf("line %d cuts an escape sequence: %q", i+1, l)
		}
		rest := strings.TrimPrefix(l, head)
		if i > 0 {
			if indent := len(l) - len(strings.TrimLeft(l, " ")); indent != cont {
				t.Errorf("line %d is indented %d columns, want %d (under the text): %q", i+1, indent, cont, l)
			}
			rest = strings.TrimLeft(l, " ")
		}
		words = append(words, strings.Fields(rest)...)
	}
	if got, want := strings.Join(words, ""), strings.Join(strings.Fields(text), ""); got != want {
		t.Fatalf("the text changed in the layout:\n got %q\nwant %q", got, want)
	}
	kept := map[string]bool{}
	for _, w := range words {
		kept[w] = true
	}
	for _, w := range strings.Fields(text) {
		if visibleLen(w) <= width-cont && !kept[w] {
			t.Errorf("the word %q fits on a line but was broken:\n%s", w, all)
		}
	}
}

func TestWrapLine(t *testing.T) {
	url := "http://127.0.0.1:39005/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-a&resourceVersion=224&timeoutSeconds=374&watch=true"
	head := "   0.004  reflector     "
	tests := []struct {
		name, head, text string
	}{
		{"words", head, "backoff 503ms: wait 503ms before trying again, growing after each failure in a row, and some more words to wrap"},
		{"a URL longer than any line", head, "because: watch pods: GET " + url + ": server answered 403 Forbidden"},
		{"a word with no place to break", head, "x " + strings.Repeat("abcdefghij", 20) + " y"},
		{"a line under the step", strings.Repeat(" ", textIndent), "fieldSelector=spec.nodeName=node-a: only pods bound to node node-a, filtered by the server: the kubelet's view"},
		{"a coloured tag", "   0.004  " + bold + magenta + "reflector    " + reset + " ", "relist: the next sync lists again instead of resuming the watch, because the resourceVersion is too old"},
		{"colour inside a long word", head, "see " + strings.Repeat("ab"+red+"cd"+reset, 30) + " end"},
		{"runes of several bytes", head, strings.Repeat("überprüfung ", 20)},
	}
	for _, tt := range tests {
		for _, width := range []int{40, 57, 80, 120} {
			t.Run(tt.name, func(t *testing.T) {
				lines := wrapLine(tt.head, tt.text, width)
				checkWrapped(t, lines, tt.head, tt.text, width)
			})
		}
	}
}

// A long word begins on the line it comes to, and a URL breaks between its
// parameters rather than inside a value.
func TestWrapBreaksURLsBetweenParameters(t *testing.T) {
	head := strings.Repeat(" ", textIndent)
	text := "because: GET /api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dnode-a&resourceVersion=224&timeoutSeconds=374&watch=true"
	lines := wrapLine(head, text, 80)
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "because: GET /api/v1/pods?") {
		t.Errorf("the URL does not begin on the first line: %q", lines[0])
	}
	for i, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, "&") && !strings.HasSuffix(l, "?") {
			t.Errorf("line %d breaks the URL elsewhere than between parameters: %q", i+1, l)
		}
	}
}

func TestWrapWidthZeroKeepsTheLine(t *testing.T) {
	text := strings.Repeat("word ", 100)
	if got := wrapLine("head ", text, 0); len(got) != 1 || got[0] != "head "+text {
		t.Fatalf("width 0: got %q, want the line whole", got)
	}
}

// The sink keeps every line of every step within its width, the lines under
// a step included.
func TestTextSinkWraps(t *testing.T) {
	var out bytes.Buffer
	s := New(&out, Options{Width: 60, Color: true})
	steps := []trace.Step{
		requestStep(t, 2, url.Values{"allowWatchBookmarks": {"true"}, "fieldSelector": {"spec.nodeName=node-a"}, "resourceVersion": {"216"}, "watch": {"true"}}),
		{Kind: trace.KindDecision, Decision: &trace.Decision{Step: "backoff", Explain: "wait 503ms before trying again, growing after each failure in a row",
			Error: "watch pods: GET http://127.0.0.1:1/api/v1/pods?watch=true: server answered 403 Forbidden: pods is forbidden"}},
	}
	for _, st := range steps {
		if err := s.Step(st); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if n := visibleLen(l); n > 60 {
			t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
		}
	}
	if n := strings.Count(out.String(), "\n"); n < 8 {
		t.Fatalf("only %d lines: nothing was wrapped?\n%s", n, out.String())
	}
}
