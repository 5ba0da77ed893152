package watch

import (
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testWait bounds every wait in these tests: reaching it means a hang, not
// slowness, so it is generous.
const testWait = 10 * time.Second

type decoded struct {
	ev  Event[testObj]
	err error
}

// pipeFeed writes each event to a net.Pipe (whose Write returns only once the
// reader has taken every byte) as the given pieces, and waits for the test to
// have decoded it before writing the next. A Decoder that read once more after a
// complete event would wait for bytes the writer holds back: a deadlock the
// test's timeout reports.
func pipeFeed(t *testing.T, pieces [][]string) (*Decoder[testObj], chan<- struct{}) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	// Buffered: with a split after the closing brace, the writer is still in
	// Write for the newline when the event is decoded.
	next := make(chan struct{}, 1)
	go func() {
		defer server.Close()
		for _, event := range pieces {
			for _, p := range event {
				if _, err := server.Write([]byte(p)); err != nil {
					return
				}
			}
			select {
			case <-next:
			case <-time.After(testWait):
				return
			}
		}
	}()
	return NewDecoder(client, testCodec, DecoderOptions{}), next
}

// decodeWithin runs one Decode and fails the test if it does not return in time.
func decodeWithin(t *testing.T, d *Decoder[testObj]) (Event[testObj], error) {
	t.Helper()
	c := make(chan decoded, 1)
	go func() {
		ev, err := d.Decode()
		c <- decoded{ev, err}
	}()
	select {
	case r := <-c:
		return r.ev, r.err
	case <-time.After(testWait):
		t.Fatalf("Decode still blocked after %v: it waited for bytes of the next event", testWait)
		return Event[testObj]{}, nil
	}
}

func TestDecodeDoesNotReadAhead(t *testing.T) {
	pod := readRealPod(t)
	var pieces [][]string
	var want []EventType
	for _, typ := range []EventType{Added, Modified, Bookmark, Deleted, Error} {
		o := pod
		switch typ {
		case Bookmark:
			o = `{"metadata":{"resourceVersion":"300"}}`
		case Error:
			o = goneStatus
		}
		pieces = append(pieces, []string{event(typ, o) + "\n"})
		want = append(want, typ)
	}
	d, next := pipeFeed(t, pieces)
	var got []EventType
	for range want {
		ev, err := decodeWithin(t, d)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		got = append(got, ev.Type)
		next <- struct{}{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
}

func TestDecodeDoesNotReadAheadAtAnySplit(t *testing.T) {
	events := []string{
		event(Added, obj("a", "1")),
		event(Bookmark, `{"metadata":{"resourceVersion":"2","annotations":{"k8s.io/initial-events-end":"true"}}}`),
		event(Error, goneStatus),
		`{"object":{"metadata":{"name":"}\"{"}},"type":"DELETED"}`,
	}
	for i, e := range events {
		line := e + "\n"
		// Every split of the event and its newline into two non-empty writes.
		for k := 1; k < len(line); k++ {
			d, next := pipeFeed(t, [][]string{{line[:k], line[k:]}, {line}})
			for j := range 2 {
				ev, err := decodeWithin(t, d)
				if err != nil {
					t.Fatalf("event %d split at %d, copy %d: %v", i, k, j, err)
				}
				if want := int64(j * len(line)); ev.Offset != want {
					t.Fatalf("event %d split at %d, copy %d: got offset %d, want %d", i, k, j, ev.Offset, want)
				}
				next <- struct{}{}
			}
		}
	}
}
