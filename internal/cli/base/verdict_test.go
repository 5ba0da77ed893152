package base

import (
	"context"
	"errors"
	"testing"
)

// TestVerdict: once ctx has ended, a verdict's end is exit 130 whatever
// it found, unless the command line was refused before it ran.
func TestVerdict(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	failed := errors.New("2 checks failed")
	usage := Usagef("check", "bad flag")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want int // exit status; -1: err comes back as it was
	}{
		{"done", live, nil, -1},
		{"done, failed", live, failed, -1},
		{"interrupted", ended, nil, ExitInterrupted},
		{"interrupted, failed", ended, failed, ExitInterrupted},
		{"usage", ended, usage, -1},
		{"help", ended, ErrHelp, -1},
	} {
		got := Verdict(tc.ctx, tc.err)
		var se StatusError
		switch {
		case tc.want < 0 && got != tc.err:
			t.Errorf("%s: Verdict = %v, want %v as it was", tc.name, got, tc.err)
		case tc.want >= 0 && (!errors.As(got, &se) || se.ExitStatus() != tc.want):
			t.Errorf("%s: Verdict = %v, want exit %d", tc.name, got, tc.want)
		case tc.want >= 0 && tc.err != nil && !errors.Is(got, tc.err):
			t.Errorf("%s: Verdict = %v, want it to keep %v", tc.name, got, tc.err)
		}
	}
}
