package rest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/wire"
)

// generated is a reader of head, then body repeated until size bytes have been
// read in all (size < 0: forever). It is never held in memory: a decoder that
// kept what it read would show in the allocations, one that read on past its
// limit in Read.
type generated struct {
	head, body []byte
	size, read int64
	at         int // offset in body
}

func (g *generated) Read(p []byte) (int, error) {
	if g.size >= 0 {
		if g.read >= g.size {
			return 0, io.EOF
		}
		if left := g.size - g.read; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n := 0
	if g.read < int64(len(g.head)) {
		n = copy(p, g.head[g.read:])
	}
	for n < len(p) {
		c := copy(p[n:], g.body[g.at:])
		g.at = (g.at + c) % len(g.body)
		n += c
	}
	g.read += int64(n)
	return n, nil
}

// allocated runs f and returns how many bytes the program allocated meanwhile:
// an upper bound of what f held at once.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const (
	gib           = 1 << 30
	defaultItemMB = 16 // rest's default MaxItemBytes, in MiB
)

// A list whose first item never ends is refused once the item passes the
// per-item limit, having read at most twice that (the buffer grows by
// doubling, and the last read may fill it), with the heap bounded by a small
// multiple of the limit however long the stream.
func TestLimitEndlessItem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lim   rest.ListLimits
		limit int64
	}{
		{"default limit", rest.ListLimits{}, defaultItemMB << 20},
		{"set limit", rest.ListLimits{MaxItemBytes: 1 << 20}, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &generated{
				head: []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"`),
				body: []byte(strings.Repeat("x", 4096)), size: 4 * gib,
			}
			var err error
			heap := allocated(func() { _, err = rest.DecodeList(in, wire.JSON, jsonCodec(decodeTestObj), tc.lim) })
			var e *rest.ItemTooLargeError
			if !errors.As(err, &e) || e.Index != 0 || e.Limit != tc.limit {
				t.Fatalf("got %v, want an *ItemTooLargeError for item 0 at %d bytes", err, tc.limit)
			}
			if in.read > 2*tc.limit+1<<20 {
				t.Fatalf("read %d bytes of a 4 GiB item, want at most twice the limit %d", in.read, tc.limit)
			}
			if max := uint64(4*tc.limit + 8<<20); heap > max {
				t.Fatalf("allocated %d bytes, want at most %d", heap, max)
			}
		})
	}
}

// A list with more items than MaxItems stops at the first one past the cap.
func TestLimitTooManyItems(t *testing.T) {
	in := &generated{
		head: []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`),
		body: []byte(smallPod("p", "1") + ",\n"), size: -1,
	}
	var err error
	heap := allocated(func() {
		_, err = rest.DecodeList(in, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{MaxItems: 10000})
	})
	var e *rest.TooManyItemsError
	if !errors.As(err, &e) || e.Limit != 10000 {
		t.Fatalf("got %v, want a *TooManyItemsError at 10000", err)
	}
	perItem := int64(len(smallPod("p", "1")) + 2)
	if in.read > 10001*perItem+1<<20 {
		t.Fatalf("read %d bytes of an endless list, want about 10001 items of %d bytes", in.read, perItem)
	}
	if heap > 64<<20 {
		t.Fatalf("allocated %d bytes for 10000 small items", heap)
	}
}

// A list is decoded item by item: 50,000 pods go through the default limits.
func TestLimitFiftyThousandItems(t *testing.T) {
	const n = 50000
	in := &generated{
		head: []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` + smallPod("p", "1")),
		body: []byte("," + smallPod("p", "1")),
	}
	in.size = int64(len(in.head)) + (n-1)*int64(len(in.body))
	r := io.MultiReader(in, strings.NewReader("]}"))
	got, err := rest.DecodeList(r, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
	if err != nil {
		t.Fatalf("DecodeList of %d items: %v", n, err)
	}
	if len(got.Items) != n || got.Metadata.ResourceVersion != "7" {
		t.Fatalf("got %d items at %q, want %d at 7", len(got.Items), got.Metadata.ResourceVersion, n)
	}
}

// dripServer writes body one byte per flush, pausing every between bytes, and
// then holds the response open until the client leaves.
func dripServer(t *testing.T, body string, every time.Duration) (*httptest.Server, <-chan int) {
	sent := make(chan int, len(body)+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := range len(body) {
			if _, err := io.WriteString(w, body[i:i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			sent <- i + 1
			select {
			case <-r.Context().Done():
				return
			case <-time.After(every):
			}
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, sent
}

// A list dripped one byte per write decodes as if it came at once.
func TestLimitDrippedListDecodes(t *testing.T) {
	body := list(smallPod("a", "1"), smallPod("b", "2"))
	srv, _ := dripServer(t, body, 0)
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Get().Resource("pods").Stream(ctx)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer resp.Body.Close()
	got, err := rest.DecodeList(io.LimitReader(resp.Body, int64(len(body))), wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
	if err != nil {
		t.Fatalf("DecodeList of a dripped list: %v", err)
	}
	if fmt.Sprint(keys(got.Items)) != "[ns/a@1 ns/b@2]" {
		t.Fatalf("got %v", keys(got.Items))
	}
}

// A server that drips an endless item slowly holds a list only until the
// caller's context ends, whatever it has sent by then.
func TestLimitDripEndsWithTheContext(t *testing.T) {
	body := `{"kind":"PodList","items":[{"metadata":{"name":"` + strings.Repeat("x", 1<<16)
	srv, sent := dripServer(t, body, time.Millisecond)
	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := c.Get().Resource("pods").Stream(ctx)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := rest.DecodeList(resp.Body, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
		done <- err
	}()
	for n := 0; n < 50; {
		select {
		case n = <-sent:
		case <-time.After(30 * time.Second):
			t.Fatalf("the server dripped %d bytes in 30s", n)
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("DecodeList after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("DecodeList still reading a dripping body 30s after its context ended")
	}
}
