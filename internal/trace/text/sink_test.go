package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/internal/trace"
)

// TestTextEscapesControls checks that a server's text cannot drive a
// terminal: escapes and other controls are shown, not sent.
func TestTextEscapesControls(t *testing.T) {
	var out bytes.Buffer
	s := New(&out, Options{})
	if err := s.Step(trace.Step{Kind: trace.KindEvent, Req: 1, Event: &trace.Event{Type: "ADDED", Namespace: "ns", Name: "a\x1b[2Jb\rc"}}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.ContainsAny(got[:len(got)-1], "\x1b\r") {
		t.Fatalf("control characters reached the output: %q", got)
	}
	if !strings.Contains(got, `a\u001b[2Jb\u000dc`) {
		t.Fatalf("got %q, want the controls escaped", got)
	}
}
