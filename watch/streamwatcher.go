package watch

import (
	"fmt"
	"io"
	"sync"

	"github.com/podwatch/podwatch/rest"
)

// StreamWatcher is an Interface over a watch response body: one goroutine of its
// own decodes the body and sends each event on ResultChan.
//
// The channel is unbuffered, so a slow receiver holds the decoder back, and with it
// the server's stream (TCP or HTTP/2 flow control): no event is dropped or queued
// without bound. A clean end of the stream closes the channel; any other failure
// sends one last Event of type Error whose Err says where and why, then closes it.
// A server ERROR event is sent as is (Err a *rest.StatusError naming where) and
// reading goes on, since the server closes the stream after it.
type StreamWatcher[T any] struct {
	body  io.ReadCloser
	dec   *Decoder[T]
	where string

	ch        chan Event[T]
	stop      chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
	closeOnce sync.Once
}

// NewStreamWatcher starts decoding body with d (which must read body) and returns
// the watcher. where names the stream in errors, each of which begins with it
// (cache.ListWatch gives its request, "GET " and the URL, as package rest's
// errors name a request); it must not hold credentials. The watcher owns body from now on: it closes it when the stream
// ends or when Stop is called. Stop must be called in any case, to release the
// watcher even when its channel has closed by itself.
func NewStreamWatcher[T any](body io.ReadCloser, d *Decoder[T], where string) *StreamWatcher[T] {
	w := &StreamWatcher[T]{
		body:  body,
		dec:   d,
		where: where,
		ch:    make(chan Event[T]),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go w.run()
	return w
}

// ResultChan returns the channel events arrive on; it is closed when the watch ends.
func (w *StreamWatcher[T]) ResultChan() <-chan Event[T] { return w.ch }

// Stop ends the watch: it closes the body, which unblocks a Read in progress, and
// returns once the goroutine has exited and the channel is closed. Events not yet
// received are dropped, and the read error the close causes is not reported. Stop
// may be called more than once, from any goroutine.
func (w *StreamWatcher[T]) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.closeBody()
	<-w.done
}

func (w *StreamWatcher[T]) closeBody() {
	// The body is a response body being read by run: closing it is how a blocked
	// Read is cut short. Its error says nothing the watch's own outcome does not.
	w.closeOnce.Do(func() { _ = w.body.Close() })
}

func (w *StreamWatcher[T]) run() {
	defer close(w.done)
	defer close(w.ch)
	defer w.closeBody()
	for {
		ev, err := w.dec.Decode()
		if err != nil {
			if err == io.EOF || w.stopped() {
				return
			}
			w.send(Event[T]{Type: Error, Err: fmt.Errorf("%s: %w", w.where, err)})
			return
		}
		if se, ok := ev.Err.(*rest.StatusError); ok && se.Where == "" {
			se.Where = w.where
		}
		if !w.send(ev) {
			return
		}
	}
}

// send delivers ev unless Stop comes first; it reports whether it delivered.
func (w *StreamWatcher[T]) send(ev Event[T]) bool {
	select {
	case w.ch <- ev:
		return true
	case <-w.stop:
		return false
	}
}

func (w *StreamWatcher[T]) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}
