package fault

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
	"github.com/podwatch/podwatch/internal/timing"
)

// ErrCut says a stream fault has cut the connection: the handler must stop
// writing and call Abort, so the client sees the body end without a clean close.
var ErrCut = errors.New("fault: connection cut")

// ErrEnded says a stream fault has ended the body cleanly (after an ERROR
// event): the handler must stop writing and return.
var ErrEnded = errors.New("fault: response ended")

// Abort ends the handler so that net/http drops the connection (HTTP/1.1) or
// resets the stream (HTTP/2) instead of ending the body cleanly.
func Abort() { panic(http.ErrAbortHandler) }

// Writer passes a watch body through to the client until its fault strikes. It
// counts events by their ending newline, as the apiserver writes them. It is
// used by one handler goroutine; waits end early when ctx ends.
type Writer struct {
	ctx     context.Context
	w       http.ResponseWriter
	f       Fault
	events  int
	written int64
	struck  bool   // the fault has happened; later writes pass through (stall, drip) or fail
	held    []byte // half-event: the next event, gathered until it is whole
	done    error  // ErrCut or ErrEnded once the body is over
	clock   timing.Clock
}

// NewWriter wraps w for the stream fault f. A whole-answer kind passes
// everything through untouched (Answer handles those).
func NewWriter(ctx context.Context, w http.ResponseWriter, f Fault) *Writer {
	return &Writer{ctx: ctx, w: w, f: f, struck: f.Kind.Whole()}
}

// WithClock makes the pauses of a stall or a drip waits on c (the wall
// clock unless told): a replay's clock, on which they keep the replay's
// pace.
func (w *Writer) WithClock(c timing.Clock) *Writer {
	w.clock = c
	return w
}

// Struck reports whether the fault has happened.
func (w *Writer) Struck() bool { return w.struck }

// Write passes p on, striking when the fault's boundary is inside it. It returns
// len(p) and nil while the body goes on, ErrCut or ErrEnded once the fault has
// ended it, or the client's write error.
func (w *Writer) Write(p []byte) (int, error) {
	if w.done != nil {
		return 0, w.done
	}
	if w.struck {
		if w.f.Kind == Drip {
			return w.drip(p)
		}
		return w.pass(p)
	}
	if w.f.Kind == HalfEvent && w.events >= w.f.Events {
		return w.gatherHalf(p)
	}
	at := w.boundary(p)
	if at < 0 {
		return w.pass(p)
	}
	if _, err := w.pass(p[:at]); err != nil {
		return 0, err
	}
	w.struck = w.f.Kind != HalfEvent
	if err := w.strike(); err != nil {
		return len(p), err
	}
	if _, err := w.Write(p[at:]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// boundary is where in p the fault strikes, or -1 if not in p. It counts the
// events p completes before that point.
func (w *Writer) boundary(p []byte) int {
	if w.f.Kind == Cut && w.f.Bytes > 0 {
		if left := w.f.Bytes - w.written; left <= int64(len(p)) {
			return int(max(left, 0))
		}
		return -1
	}
	if w.events >= w.f.Events {
		return 0
	}
	n := w.events
	for i, b := range p {
		if b == '\n' {
			n++
			if n == w.f.Events {
				return i + 1
			}
		}
	}
	return -1
}

func (w *Writer) pass(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := w.w.Write(p)
	w.written += int64(n)
	w.events += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

func (w *Writer) flush() {
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush()
	}
}

// strike does the fault at the boundary, the bytes before it already written.
func (w *Writer) strike() error {
	w.flush()
	switch w.f.Kind {
	case Cut:
		w.done = ErrCut
	case GoneEvent:
		w.pass(apiwire.ErrorEvent(GoneStatus()))
		w.flush()
		w.done = ErrEnded
	case Stall:
		if !w.sleep(w.f.wait()) {
			w.done = ErrCut
		}
	case Garbage:
		w.pass([]byte("\x00\xff}{ not json \x1b[0m\n"))
		w.flush()
		w.done = ErrCut
	case Oversized:
		w.done = w.oversized()
	}
	return w.done
}

// gatherHalf holds the next event until it is whole, then writes its first half
// and cuts.
func (w *Writer) gatherHalf(p []byte) (int, error) {
	w.held = append(w.held, p...)
	end := bytes.IndexByte(w.held, '\n')
	if end < 0 {
		return len(p), nil
	}
	w.struck = true
	w.pass(w.held[:(end+1)/2])
	w.flush()
	w.held = nil
	w.done = ErrCut
	return len(p), ErrCut
}

func (w *Writer) drip(p []byte) (int, error) {
	for i := range p {
		if _, err := w.pass(p[i : i+1]); err != nil {
			return i, err
		}
		w.flush()
		if !w.sleep(w.f.wait()) {
			w.done = ErrCut
			return i + 1, ErrCut
		}
	}
	return len(p), nil
}

// oversized starts an event and streams Size bytes of one string into it, never
// holding more than a block, then cuts.
func (w *Writer) oversized() error {
	size := w.f.Size
	if size <= 0 {
		size = defaultSize
	}
	if _, err := w.pass([]byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"`)); err != nil {
		return err
	}
	block := bytes.Repeat([]byte("x"), 32<<10)
	for sent := int64(0); sent < size; sent += int64(len(block)) {
		if w.ctx.Err() != nil {
			return ErrCut
		}
		n := min(int64(len(block)), size-sent)
		if _, err := w.pass(block[:n]); err != nil {
			return err
		}
	}
	w.flush()
	return ErrCut
}

func (w *Writer) sleep(d time.Duration) bool {
	if w.ctx.Err() != nil {
		return false
	}
	clock := w.clock
	if clock == nil {
		clock = timing.Wall
	}
	select {
	case <-clock.After(d):
		return true
	case <-w.ctx.Done():
		return false
	}
}
