package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// event is the part of a watch event the tests read; object holds either
// a pod (metadata) or, for ERROR events, a Status (code, reason).
type event struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Name              string  `json:"name"`
			Namespace         string  `json:"namespace"`
			ResourceVersion   string  `json:"resourceVersion"`
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"object"`
}

// testWatch reads one watch response on its own goroutine. stop ends it
// and waits for the goroutine; t.Cleanup calls stop too.
type testWatch struct {
	resp   *http.Response
	cancel context.CancelFunc
	events chan event
	done   chan struct{}
	err    error // why the stream ended; read after done is closed
}

// startWatch GETs path with the client and, on a 200, starts reading the
// stream. A non-200 answer is returned as the response (body read into
// the error text of the test, by the caller) with a nil watch.
func startWatch(t *testing.T, client *http.Client, url string) (*testWatch, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		t.Fatalf("new watch request: %v", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Cleanup(cancel)
		return nil, resp
	}
	w := &testWatch{resp: resp, cancel: cancel, events: make(chan event), done: make(chan struct{})}
	go w.read(ctx)
	t.Cleanup(w.stop)
	return w, resp
}

func (w *testWatch) read(ctx context.Context) {
	defer close(w.done)
	dec := json.NewDecoder(w.resp.Body)
	for {
		var ev event
		if err := dec.Decode(&ev); err != nil {
			w.err = err
			return
		}
		select {
		case w.events <- ev:
		case <-ctx.Done():
			w.err = ctx.Err()
			return
		}
	}
}

func (w *testWatch) stop() {
	w.cancel()
	w.resp.Body.Close()
	<-w.done
}

// next returns the next event, failing the test if none comes within
// timeout or the stream ends first.
func (w *testWatch) next(t *testing.T, timeout time.Duration) event {
	t.Helper()
	select {
	case ev := <-w.events:
		return ev
	case <-w.done:
		t.Fatalf("watch ended before the next event: %v", w.err)
	case <-time.After(timeout):
		t.Fatalf("no watch event within %s", timeout)
	}
	return event{}
}

// waitEnd waits for the stream to end and returns the events it still
// sent and why it ended (io.EOF for a clean end).
func (w *testWatch) waitEnd(t *testing.T, timeout time.Duration) ([]event, error) {
	t.Helper()
	var seen []event
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-w.events:
			seen = append(seen, ev)
		case <-w.done:
			return seen, w.err
		case <-deadline:
			t.Fatalf("watch did not end within %s (events seen: %+v)", timeout, seen)
			return nil, nil
		}
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }
