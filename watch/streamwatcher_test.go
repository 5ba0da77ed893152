package watch

import (
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
)

const where = "GET https://apiserver/api/v1/pods?watch=true"

// countingBody is a body that counts its Close calls.
type countingBody struct {
	io.Reader
	closes atomic.Int32
}

func (b *countingBody) Close() error {
	b.closes.Add(1)
	return nil
}

func newWatcher(body io.ReadCloser) *StreamWatcher[testObj] {
	return NewStreamWatcher(body, NewDecoder(body, testCodec, DecoderOptions{}), where)
}

// recv waits for the next event; ok is false when the channel closed.
func recv(t *testing.T, w Interface[testObj]) (Event[testObj], bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(testWait):
		t.Fatalf("no event and no close after %v", testWait)
		return Event[testObj]{}, false
	}
}

// drain receives until the channel closes.
func drain(t *testing.T, w Interface[testObj]) []Event[testObj] {
	t.Helper()
	var evs []Event[testObj]
	for {
		ev, ok := recv(t, w)
		if !ok {
			return evs
		}
		evs = append(evs, ev)
	}
}

// stopWithin calls Stop and fails the test if it does not return in time.
func stopWithin(t *testing.T, w Interface[testObj]) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		w.Stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatalf("Stop did not return within %v", testWait)
	}
}

func TestWatcherCleanEnd(t *testing.T) {
	body := &countingBody{Reader: strings.NewReader(event(Added, obj("a", "1")) + "\n" + event(Deleted, obj("a", "2")) + "\n")}
	w := newWatcher(body)
	defer w.Stop()
	var got []EventType
	for _, ev := range drain(t, w) {
		if ev.Err != nil {
			t.Errorf("got error event %v, want none at a clean end", ev.Err)
		}
		got = append(got, ev.Type)
	}
	if diff := cmp.Diff([]EventType{Added, Deleted}, got); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	stopWithin(t, w)
	if n := body.closes.Load(); n != 1 {
		t.Errorf("body closed %d times, want once", n)
	}
}

func TestWatcherForwardsServerError(t *testing.T) {
	body := io.NopCloser(strings.NewReader(event(Error, goneStatus) + "\n" + event(Added, obj("a", "1")) + "\n"))
	w := newWatcher(body)
	defer w.Stop()
	evs := drain(t, w)
	if len(evs) != 2 {
		t.Fatalf("got %d events, want the ERROR and the event after it", len(evs))
	}
	se, ok := evs[0].Err.(*rest.StatusError)
	if evs[0].Type != Error || !ok {
		t.Fatalf("got %s event with Err %T, want ERROR with *rest.StatusError", evs[0].Type, evs[0].Err)
	}
	if !rest.IsGone(se) || se.Status.Code != 410 || se.Where != where {
		t.Errorf("got code %d, where %q; want 410 and %q", se.Status.Code, se.Where, where)
	}
	if evs[1].Type != Added {
		t.Errorf("got %s after the ERROR event, want ADDED", evs[1].Type)
	}
}

func TestWatcherReportsStreamFailures(t *testing.T) {
	a1 := event(Added, obj("a", "1")) + "\n"
	for _, tc := range []struct {
		name string
		body io.Reader
		is   func(error) bool
	}{
		{"syntax error", strings.NewReader(a1 + "{]}"), func(err error) bool {
			var se *jsonx.SyntaxError
			return errors.As(err, &se) && se.Offset == int64(len(a1)+1)
		}},
		{"truncated", strings.NewReader(a1 + a1[:20]), func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"unknown type", strings.NewReader(a1 + event("RESIZED", obj("a", "2"))), func(err error) bool {
			var ue *UnknownEventTypeError
			return errors.As(err, &ue) && ue.Type == "RESIZED"
		}},
		{"read error", &chunkReader{chunks: []string{a1}, err: errBoom}, func(err error) bool { return errors.Is(err, errBoom) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatcher(io.NopCloser(tc.body))
			defer w.Stop()
			evs := drain(t, w)
			if len(evs) != 2 {
				t.Fatalf("got %d events, want the good one and an error", len(evs))
			}
			last := evs[1]
			if last.Type != Error || !tc.is(last.Err) {
				t.Fatalf("got final %s event with Err %v, want an Error event wrapping the failure", last.Type, last.Err)
			}
			if !strings.HasPrefix(last.Err.Error(), where+": ") {
				t.Errorf("got %q, want the error to name the stream", last.Err)
			}
		})
	}
}

func TestWatcherStopTwice(t *testing.T) {
	body := &countingBody{Reader: strings.NewReader(event(Added, obj("a", "1")))}
	w := newWatcher(body)
	stopWithin(t, w)
	stopWithin(t, w)
	if _, ok := <-w.ResultChan(); ok {
		// The event may or may not have been taken before Stop; the channel
		// must be closed after it either way.
		if _, ok := <-w.ResultChan(); ok {
			t.Errorf("channel still open after Stop")
		}
	}
	if n := body.closes.Load(); n != 1 {
		t.Errorf("body closed %d times, want once", n)
	}
}

func TestWatcherStopFromManyGoroutines(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	w := newWatcher(client)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { w.Stop() })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(testWait):
		t.Fatalf("concurrent Stops did not return within %v", testWait)
	}
}

func TestWatcherStopWhileBlockedInRead(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	w := newWatcher(client)
	// The first event arrives, then the server goes quiet: the goroutine is
	// left in Read.
	go server.Write([]byte(event(Added, obj("a", "1")) + "\n"))
	if ev, ok := recv(t, w); !ok || ev.Type != Added {
		t.Fatalf("got %v (open %v), want the ADDED event", ev, ok)
	}
	stopWithin(t, w)
	if ev, ok := <-w.ResultChan(); ok {
		t.Errorf("got %s event (Err %v) after Stop, want a closed channel and no error from the close", ev.Type, ev.Err)
	}
}

func TestWatcherStopWhileBlockedInSend(t *testing.T) {
	// Nobody receives: the goroutine waits to send the first event.
	w := newWatcher(io.NopCloser(strings.NewReader(event(Added, obj("a", "1")))))
	stopWithin(t, w)
	for range w.ResultChan() {
		t.Errorf("got an event after Stop returned")
	}
}

func TestWatcherLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	var servers []net.Conn
	for i := range 20 {
		client, server := net.Pipe()
		servers = append(servers, server)
		w := newWatcher(client)
		switch i % 3 {
		case 0: // stopped while blocked in Read
		case 1: // ended by the server
			server.Close()
			drain(t, w)
		case 2: // stopped while an event waits to be received
			go server.Write([]byte(event(Added, obj("a", "1"))))
		}
		stopWithin(t, w)
	}
	for _, s := range servers {
		s.Close()
	}
	deadline := time.Now().Add(testWait)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
