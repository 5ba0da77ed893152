package rest

import (
	"context"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// sleepOn waits d on c, or until ctx ends: then it returns ctx's cause.
func sleepOn(ctx context.Context, c timing.Clock, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-c.After(d):
		return nil
	}
}

// withTimeout is context.WithTimeout on c: ctx ends d after now on c, with
// context.DeadlineExceeded as its cause (what net/http and sleepOn report).
// On the wall clock it is context.WithTimeout itself, so the transport sees
// the deadline too.
func withTimeout(ctx context.Context, c timing.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if c == timing.Wall {
		return context.WithTimeout(ctx, d)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := timing.AfterFunc(c, d, func() { cancel(context.DeadlineExceeded) })
	return ctx, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}
