package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

type failingSink struct{ steps int }

func (f *failingSink) Step(Step) error { f.steps++; return errors.New("disk full") }
func (f *failingSink) Close() error    { return nil }

// TestFailingSink checks that a sink that fails gets nothing more, the
// others go on, and the failure is returned.
func TestFailingSink(t *testing.T) {
	bad := &failingSink{}
	var good bytes.Buffer
	tr := New(Options{Sinks: []Sink{bad, JSON(&good)}, Clock: func() time.Time { return time.Time{} }})
	tr.Begin("https://x", "pods")
	tr.Begin("https://x", "pods")
	err := tr.Close()
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close: got %v, want the sink's failure", err)
	}
	if bad.steps != 1 {
		t.Fatalf("the failed sink was given %d steps, want 1", bad.steps)
	}
	if n := strings.Count(good.String(), "\n"); n != 3 {
		t.Fatalf("the good sink got %d steps, want 3:\n%s", n, good.String())
	}
}
