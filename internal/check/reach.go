package check

import (
	"context"
	"fmt"
	"time"
)

// reachWait bounds the first request: a server that takes the connection
// but has not answered by then is reachable, and the checks judge its
// silence.
const reachWait = 5 * time.Second

// UnreachableError is a server the battery could not reach at all: its first
// request got no HTTP answer (refused, reset, no route, a TLS failure). Run
// returns it instead of judging every check against a server that never
// answered, where each would fail for the same reason.
type UnreachableError struct {
	// Request is what was sent ("GET /version"), Err why no answer came.
	Request string
	Err     error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("check: cannot reach the server: %s: %v", e.Request, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// reach asks for /version and returns an *UnreachableError when no answer
// comes. Any answer at all, a 404 from a server that serves pods only
// included, means the server is there for the checks to judge. /version,
// not the pods: a fault or a count of lists on the server side must see
// the checks' requests alone.
func (e *env) reach(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, reachWait)
	defer cancel()
	x := &Exchange{}
	_, err := e.json.Get().AbsPath("/version").Do(withExchange(ctx, x))
	if err == nil || x.Status != 0 || ctx.Err() != nil {
		return nil
	}
	return &UnreachableError{Request: x.Request, Err: err}
}
