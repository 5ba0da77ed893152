package cache

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podwatch/podwatch/internal/timing"
)

// DefaultStallGrace is how much longer than its timeoutSeconds a watch may stay
// silent before its connection is presumed dead.
const DefaultStallGrace = 30 * time.Second

// DefaultListStall is how long a list body may go without a byte.
const DefaultListStall = 60 * time.Second

// StallError is a watch on which no byte arrived for longer than the server should
// have kept it open, or a list body silent for longer than ListWatch.ListStall:
// the connection is presumed dead (a peer gone without a FIN or RST, as HTTP/1.1
// has no pings to notice it, or a server that answered headers and then nothing).
// A Reflector treats it as any other cut stream: a watch resumes from the last
// resourceVersion, a list is retried after a backoff.
type StallError struct {
	Where   string        // the request URL
	Silence time.Duration // how long no byte had arrived
	List    bool          // a list body, not a watch
}

func (e *StallError) Error() string {
	// The request is named as rest's errors name it, its method and URL.
	if e.List {
		return fmt.Sprintf("GET %s: no byte of the list's body for %v: connection presumed dead", e.Where, e.Silence)
	}
	return fmt.Sprintf("GET %s: no byte of the watch for %v, longer than its timeout plus grace: connection presumed dead", e.Where, e.Silence)
}

// watchdogBody guards a watch body: when no byte has arrived for limit, it closes
// the body (which unblocks a Read in progress) and Read returns a *StallError
// from then on. Close stops the timer and closes the body; it may be called more
// than once, from any goroutine.
type watchdogBody struct {
	body    io.ReadCloser
	where   string
	list    bool
	limit   time.Duration
	stalled atomic.Bool
	once    sync.Once
	cerr    error

	mu     sync.Mutex // guards timer against a Reset after Close
	timer  timing.Timer
	closed bool
}

// newWatchdogBody starts the timer at once: the silence counts from the response
// headers. The caller must Close the result.
//
// The timer is a guard on clock, the client's (nil: the wall clock). In a
// replay the silence is the replay's time: at speed S a limit of d fires
// after d/S. At speed 0 (a virtual clock) the client's own waits move that
// time, and so does a server's injected pause (a stall) once the client
// has read all before it: the watchdog fires when such a pause outlasts
// it. A server that really went silent moves nothing, and the watchdog
// fires by the backstop the replay's clock keeps under every guard: after
// d of wall time.
func newWatchdogBody(body io.ReadCloser, where string, limit time.Duration, clock timing.Clock) *watchdogBody {
	b := &watchdogBody{body: body, where: where, limit: limit}
	b.timer = timing.AfterFunc(clock, limit, b.fire)
	return b
}

func (b *watchdogBody) fire() {
	b.stalled.Store(true)
	b.closeBody()
}

func (b *watchdogBody) Read(p []byte) (int, error) {
	if b.stalled.Load() {
		return 0, b.stallError()
	}
	n, err := b.body.Read(p)
	if n > 0 {
		b.reset()
	}
	if err != nil && !errors.Is(err, io.EOF) && b.stalled.Load() {
		// The failure is the close fire caused; say why it happened.
		return n, b.stallError()
	}
	return n, err
}

func (b *watchdogBody) stallError() error {
	return &StallError{Where: b.where, Silence: b.limit, List: b.list}
}

// reset restarts the silence count unless the body is closed (a Reset would
// revive a stopped timer). A byte that arrives just as the timer fires is lost
// with the connection, which fire is closing anyway.
func (b *watchdogBody) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.timer.Reset(b.limit)
	}
}

// Close stops the watchdog and closes the body.
func (b *watchdogBody) Close() error {
	b.mu.Lock()
	b.closed = true
	b.timer.Stop()
	b.mu.Unlock()
	return b.closeBody()
}

func (b *watchdogBody) closeBody() error {
	b.once.Do(func() { b.cerr = b.body.Close() })
	return b.cerr
}
